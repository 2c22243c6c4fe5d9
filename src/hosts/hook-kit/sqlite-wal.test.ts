import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { hasSqlite3 } from "../test-support/sqlite3.js";
import { readSqliteTable, SqliteFileError } from "./sqlite-file.js";

const root = mkdtempSync(join(tmpdir(), "tc-sqlite-wal-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let made = 0;
const newPath = () => join(root, `db${++made}.db`);

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

/** A sqlite3 program kept open on `path`, as a host's own connection stays open. */
function writer(path: string) {
  const child = spawn("sqlite3", [path]);
  children.push(child);
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  let marker = 0;
  const run = (sql: string) =>
    new Promise<void>((resolve, reject) => {
      const tag = `done-${++marker}`;
      child.stdin.write(`${sql}\nSELECT '${tag}';\n`);
      const timer = setInterval(() => {
        if (err !== "" || exited) {
          clearInterval(timer);
          reject(new Error(err || "sqlite3 exited"));
        }
        if (!out.includes(tag)) return;
        clearInterval(timer);
        resolve();
      }, 5);
    });
  return { run, child };
}

/** SQLite's own reading of the table, as JSON rows. */
function oracle(path: string, query: string): unknown[] {
  const out = execFileSync("sqlite3", ["-json", path, query], { encoding: "utf8" });
  return out.trim() === "" ? [] : (JSON.parse(out) as unknown[]);
}

const COLUMNS = ["id", "title", "status"];
const SCHEMA =
  "CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT, description TEXT, status TEXT, created_at TEXT, updated_at TEXT);";
const walSize = (path: string) => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;

/** The WAL's frames rewritten with big-endian checksums (magic 0x377f0683), as a big-endian machine writes them. */
function bigEndianWal(wal: Buffer): Buffer {
  const out = Buffer.from(wal);
  const pageSize = out.readUInt32BE(8);
  let s0 = 0;
  let s1 = 0;
  const add = (at: number, length: number) => {
    for (let i = at; i < at + length; i += 8) {
      s0 = (s0 + out.readUInt32BE(i) + s1) >>> 0;
      s1 = (s1 + out.readUInt32BE(i + 4) + s0) >>> 0;
    }
  };
  out.writeUInt32BE(0x377f0683, 0);
  add(0, 24);
  out.writeUInt32BE(s0, 24);
  out.writeUInt32BE(s1, 28);
  for (let at = 32; at + 24 + pageSize <= out.length; at += 24 + pageSize) {
    add(at, 8);
    add(at + 24, pageSize);
    out.writeUInt32BE(s0, at + 16);
    out.writeUInt32BE(s1, at + 20);
  }
  return out;
}

describe.skipIf(!hasSqlite3)("readSqliteTable in WAL mode", () => {
  it("reads committed transactions still in the WAL, newest frame first, and never uncommitted ones", async () => {
    const path = newPath();
    const w = writer(path);
    await w.run(`PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; ${SCHEMA}`);
    await w.run(
      "INSERT INTO todos (id, title, status) VALUES ('a', 'A', 'pending'), ('b', 'B', 'pending'), ('c', 'C', 'pending');",
    );
    await w.run(
      "UPDATE todos SET status = 'done' WHERE id = 'a'; DELETE FROM todos WHERE id = 'b';",
    );
    expect(walSize(path)).toBeGreaterThan(0);
    const committed = [
      { id: "a", title: "A", status: "done" },
      { id: "c", title: "C", status: "pending" },
    ];
    expect(readSqliteTable(path, "todos", COLUMNS)).toEqual(committed);
    expect(oracle(path, "SELECT id, title, status FROM todos ORDER BY rowid")).toEqual(committed);
    // The main file alone has no table yet: the rows came from the WAL.
    const alone = newPath();
    copyFileSync(path, alone);
    expect(() => readSqliteTable(alone, "todos", COLUMNS)).toThrow(/no table todos/);

    // A transaction too large for the writer's cache spills frames into the WAL before it commits.
    const before = walSize(path);
    await w.run(
      "PRAGMA cache_size=1; BEGIN; WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 3000) INSERT INTO todos (id, title, status) SELECT 'x' || i, hex(randomblob(100)), 'pending' FROM k;",
    );
    expect(walSize(path)).toBeGreaterThan(before + 100_000);
    expect(readSqliteTable(path, "todos", COLUMNS)).toEqual(committed);
    await w.run("COMMIT;");
    expect(readSqliteTable(path, "todos", COLUMNS)).toHaveLength(3002);
  });

  it("ignores a restarted WAL's older frames, and reads big-endian checksums", async () => {
    const path = newPath();
    const w = writer(path);
    await w.run(`PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; ${SCHEMA}`);
    await w.run(
      "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 500) INSERT INTO todos (id, title, status) SELECT 'old' || i, hex(randomblob(200)), 'pending' FROM k;",
    );
    const large = walSize(path);
    await w.run("PRAGMA wal_checkpoint(RESTART);");
    await w.run("DELETE FROM todos WHERE id <> 'old1'; UPDATE todos SET status = 'done';");
    // The WAL starts again at its beginning with new salts; the older frames stay behind them.
    expect(walSize(path)).toBe(large);
    const rows = readSqliteTable(path, "todos", ["id", "status"]);
    expect(rows).toEqual([{ id: "old1", status: "done" }]);

    const copy = newPath();
    copyFileSync(path, copy);
    writeFileSync(`${copy}-wal`, bigEndianWal(readFileSync(`${path}-wal`)));
    expect(readSqliteTable(copy, "todos", ["id", "status"])).toEqual(rows);
    // A frame whose checksum fails ends the log there: the delete is not seen.
    const broken = bigEndianWal(readFileSync(`${path}-wal`));
    broken[32 + 24 + 200] = broken[32 + 24 + 200]! ^ 0xff;
    writeFileSync(`${copy}-wal`, broken);
    expect(readSqliteTable(copy, "todos", ["id"])).toHaveLength(500);
  });

  it("reads the main file when the WAL's header is not valid", () => {
    const path = newPath();
    execFileSync("sqlite3", [
      path,
      `${SCHEMA} INSERT INTO todos (id, status) VALUES ('a', 'done');`,
    ]);
    writeFileSync(`${path}-wal`, Buffer.alloc(5000, 7));
    expect(readSqliteTable(path, "todos", ["id"])).toEqual([{ id: "a" }]);
  });

  it("gives a consistent list or an error while a writer keeps committing", async () => {
    for (const mode of ["WAL", "DELETE"]) {
      const path = newPath();
      const w = writer(path);
      await w.run(`PRAGMA page_size=512; PRAGMA journal_mode=${mode}; CREATE TABLE t (id INTEGER PRIMARY KEY, n, pad);
        WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 200) INSERT INTO t SELECT i, 0, hex(randomblob(60)) FROM k;`);
      // Every transaction moves all 200 rows (over many pages) to the same next n.
      const updates = "UPDATE t SET n = n + 1;\n".repeat(3000);
      const busy = w.run(updates);
      const seen = new Set<number>();
      let errors = 0;
      // For 1.5 s, and on until reads have met the writer at work (8 s at most): on a loaded
      // 2-core machine, 1.5 s of reading once saw only 3 values (92 reads refused as changing).
      const start = Date.now();
      const reading = () => {
        const elapsed = Date.now() - start;
        return elapsed < 1500 || (seen.size <= 3 && elapsed < 8_000);
      };
      while (reading()) {
        try {
          const rows = readSqliteTable(path, "t", ["n"]);
          expect(rows).toHaveLength(200);
          const values = new Set(rows.map((r) => r.n as number));
          expect(values.size).toBe(1);
          seen.add([...values][0]!);
        } catch (error) {
          if (!(error instanceof SqliteFileError)) throw error;
          expect(error.message).toMatch(/kept changing|rollback journal is hot/);
          errors++;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      w.child.kill();
      await busy.catch(() => undefined);
      // Reads happened while it wrote, not only before or after.
      expect(seen.size, `${mode}: ${errors} errors`).toBeGreaterThan(3);
    }
  }, 30_000);
});

describe.skipIf(!hasSqlite3)("readSqliteTable on a corrupt file", () => {
  function sample(): string {
    const path = newPath();
    execFileSync("sqlite3", [path], {
      input: `PRAGMA page_size=512; ${SCHEMA}
        WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 400)
        INSERT INTO todos (id, title, status) SELECT 'id' || i, hex(randomblob(i % 300)), 'pending' FROM k;`,
    });
    return path;
  }
  const rootOf = (path: string) =>
    Number(
      execFileSync("sqlite3", [path, "SELECT rootpage FROM sqlite_schema WHERE name = 'todos'"]),
    );

  it("names the file and the fault: truncated, bad header, a page pointing to itself", () => {
    const path = sample();
    const bytes = readFileSync(path);
    const variant = (change: (b: Buffer) => Buffer) => {
      const copy = newPath();
      writeFileSync(copy, change(Buffer.from(bytes)));
      return copy;
    };
    const truncated = variant((b) => b.subarray(0, b.length / 2));
    expect(() => readSqliteTable(truncated, "todos", COLUMNS)).toThrow(
      new RegExp(`${truncated}: page \\d+ is (past the end|out of range)`),
    );
    const magic = variant((b) => {
      b[3] = b[3]! ^ 1;
      return b;
    });
    expect(() => readSqliteTable(magic, "todos", COLUMNS)).toThrow(/not a SQLite 3 database/);
    const pageSize = variant((b) => {
      b.writeUInt16BE(1000, 16);
      return b;
    });
    expect(() => readSqliteTable(pageSize, "todos", COLUMNS)).toThrow(/page size is 1000/);
    const rootPage = rootOf(path);
    expect(bytes[(rootPage - 1) * 512]).toBe(0x05);
    const self = variant((b) => {
      b.writeUInt32BE(rootPage, (rootPage - 1) * 512 + 8);
      return b;
    });
    expect(() => readSqliteTable(self, "todos", COLUMNS)).toThrow(
      `${self}: page ${rootPage} is reached twice (a cycle)`,
    );
    const fifo = sample();
    execFileSync("mkfifo", [`${fifo}-wal`]);
    expect(() => readSqliteTable(fifo, "todos", COLUMNS)).toThrow(
      `${fifo}-wal is not a regular file`,
    );
    const hot = sample();
    writeFileSync(`${hot}-journal`, Buffer.from([0xd9, 0xd5, 0x05, 0xf9]));
    expect(() => readSqliteTable(hot, "todos", COLUMNS)).toThrow(/rollback journal is hot/);
    writeFileSync(`${hot}-journal`, Buffer.alloc(512));
    expect(readSqliteTable(hot, "todos", COLUMNS)).toHaveLength(400);
  });

  it("an overflow chain that loops is an error", () => {
    const path = newPath();
    execFileSync("sqlite3", [path], {
      input: `PRAGMA page_size=512; CREATE TABLE t (v); INSERT INTO t VALUES (hex(randomblob(1500)));`,
    });
    const bytes = readFileSync(path);
    // Page 1 the schema, 2 the table, 3 on its overflow pages.
    bytes.writeUInt32BE(3, 2 * 512);
    writeFileSync(path, bytes);
    expect(() => readSqliteTable(path, "t", ["v"])).toThrow(/page 3 is reached twice/);
  });

  it("a cell claiming more bytes than the file holds is an error before any allocation", () => {
    const path = newPath();
    execFileSync("sqlite3", [path], {
      input: `PRAGMA page_size=512; CREATE TABLE t (v); INSERT INTO t VALUES (hex(randomblob(1500)));`,
    });
    const bytes = readFileSync(path);
    const cell = bytes.readUInt16BE(512 + 8);
    // The payload size as a 4-byte varint of 200,000,000 (the cell's own varint was 2 bytes).
    const huge = [
      0x80 | (200_000_000 >> 21),
      0x80 | ((200_000_000 >> 14) & 0x7f),
      0x80 | ((200_000_000 >> 7) & 0x7f),
      200_000_000 & 0x7f,
    ];
    Buffer.from(huge).copy(bytes, 512 + cell - 2);
    bytes.writeUInt16BE(cell - 2, 512 + 8);
    writeFileSync(path, bytes);
    expect(() => readSqliteTable(path, "t", ["v"])).toThrow(/claims 200000000 bytes/);
  });

  it("any flipped bytes give the rows or a SqliteFileError, never another error or a hang", () => {
    const path = sample();
    const bytes = readFileSync(path);
    const good = readSqliteTable(path, "todos", COLUMNS);
    const copy = newPath();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 })), {
          minLength: 1,
          maxLength: 20,
        }),
        (flips) => {
          const changed = Buffer.from(bytes);
          for (const [at, mask] of flips) changed[at]! ^= mask;
          writeFileSync(copy, changed);
          try {
            const rows = readSqliteTable(copy, "todos", COLUMNS);
            expect(rows.length).toBeLessThanOrEqual(good.length + 400);
          } catch (error) {
            expect(error).toBeInstanceOf(SqliteFileError);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
