import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { hasSqlite3 } from "../test-support/sqlite3.js";
import {
  readSqliteTable,
  SqliteFileError,
  SqliteUnsupportedError,
  type SqliteValue,
} from "./sqlite-file.js";
import { readSqliteTableRows } from "./sqlite-read.js";

const root = mkdtempSync(join(tmpdir(), "tc-sqlite-file-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let made = 0;

/** A new database made by the sqlite3 program from `sql`. */
function makeDb(sql: string): string {
  const path = join(root, `db${++made}.db`);
  execFileSync("sqlite3", [path], { input: sql, maxBuffer: 1 << 28 });
  return path;
}

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

function intOf(text: string): number | bigint {
  const big = BigInt(text);
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(big)
    : big;
}

/** What SQLite itself reads: each value's type and quote() (exact), text from its JSON. */
function oracle(path: string, table: string, columns: readonly string[]) {
  const parts = columns.flatMap((c, i) => [
    `typeof(${q(c)}) AS t${i}`,
    `quote(${q(c)}) AS q${i}`,
    `${q(c)} AS v${i}`,
  ]);
  const query = `SELECT ${parts.join(", ")} FROM ${q(table)} ORDER BY rowid`;
  const out = execFileSync("sqlite3", ["-readonly", "-json", path, query], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  const rows = out.trim() === "" ? [] : (JSON.parse(out) as Record<string, unknown>[]);
  return rows.map((row) => {
    const result: Record<string, SqliteValue> = {};
    columns.forEach((name, i) => {
      const type = row[`t${i}`];
      const quoted = String(row[`q${i}`]);
      if (type === "null") result[name] = null;
      else if (type === "integer") result[name] = intOf(quoted);
      // quote() writes infinities as Inf.
      else if (type === "real") result[name] = Number.parseFloat(quoted.replace("Inf", "Infinity"));
      else if (type === "text") result[name] = row[`v${i}`] as string;
      else result[name] = Uint8Array.from(Buffer.from(quoted.slice(2, -1), "hex"));
    });
    return { result, quotes: row };
  });
}

/**
 * quote() writes a real with 15 significant digits when SQLite's own (inexact) parser reads
 * them back as the same double, else with 21: a 15-digit real is the read value to 15 digits.
 */
function sameReal(read: unknown, quoted: string): boolean {
  const digits = quoted
    .replace(/^-|e.*$/g, "")
    .replace(".", "")
    .replace(/^0+/, "").length;
  return (
    typeof read === "number" && digits <= 15 && Number(read.toPrecision(15)) === Number(quoted)
  );
}

function expectSameRows(path: string, table: string, columns: readonly string[]) {
  const sqlite = oracle(path, table, columns);
  const read = readSqliteTable(path, table, columns);
  const expected = sqlite.map(({ result, quotes }, r) => {
    const row = { ...result };
    columns.forEach((name, i) => {
      const value = read[r]?.[name];
      if (quotes[`t${i}`] === "real" && sameReal(value, String(quotes[`q${i}`])))
        row[name] = value!;
    });
    return row;
  });
  expect(read).toEqual(expected);
  return expected;
}

/** A SQL literal SQLite reads back as `value` (a real stays a real). */
function literal(value: SqliteValue): string {
  if (value === null) return "NULL";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") return `'${value.replaceAll("'", "''")}'`;
  if (value instanceof Uint8Array) return `X'${Buffer.from(value).toString("hex")}'`;
  if (Number.isInteger(value) && !Object.is(value, -0) && Math.abs(value) < 2 ** 53) {
    return String(value);
  }
  if (value === Number.POSITIVE_INFINITY) return "9e999";
  if (value === Number.NEGATIVE_INFINITY) return "-9e999";
  const text = Object.is(value, -0) ? "-0.0" : String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

const edges = [0n, 1n, 127n, 128n, 32767n, 32768n, 8388607n, 8388608n, 2147483647n, 2147483648n];
const integer = fc.oneof(
  fc.constantFrom(...edges.flatMap((n) => [n, -n - 1n]), 2n ** 47n - 1n, 2n ** 47n, 2n ** 63n - 1n),
  fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n),
  fc.integer({ min: -1000, max: 1000 }).map(BigInt),
);
const text = (min: number, max: number) =>
  fc
    .string({ unit: "binary", minLength: min, maxLength: max })
    // No lone surrogates (UTF-8 cannot hold them), no NUL (the shell's SQL text ends there), and
    // no CR before LF: the sqlite3 shell reads its input by lines and drops a CR that ends one,
    // so the file would hold another text than the test's (the reader saw the truth, seed
    // 1033920263: a column named "\r\n\t\x07" that SQLite itself names "\n\t\x07").
    .filter((s) => !/[\0\ud800-\udfff]|\r\n/u.test(s));
const value: fc.Arbitrary<SqliteValue> = fc.oneof(
  fc.constant(null),
  integer,
  // quote() writes -0.0 as 0.0: the oracle could not tell them apart.
  fc.double({ noNaN: true }).map((x) => (Object.is(x, -0) ? 0 : x)),
  text(0, 40),
  fc.oneof({ weight: 1, arbitrary: text(300, 3000) }, { weight: 1, arbitrary: fc.constant("") }),
  fc.string({ unit: "grapheme-ascii", minLength: 5000, maxLength: 80000 }),
  fc.uint8Array({ maxLength: 40 }),
  fc.uint8Array({ minLength: 1000, maxLength: 20000 }),
);

describe.skipIf(!hasSqlite3)("readSqliteTable against the sqlite3 program", () => {
  it("reads random rows of every kind at every page size as SQLite does", () => {
    const COLUMNS = ["rowid", "a", "b", "c", "d"];
    fc.assert(
      fc.property(
        fc.constantFrom(512, 1024, 4096, 65536),
        fc.array(
          fc.tuple(
            fc.option(fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n)),
            fc.array(value, { minLength: 4, maxLength: 4 }),
          ),
          { maxLength: 25 },
        ),
        (pageSize, rows) => {
          const inserts = rows.map(
            ([rowid, values]) =>
              `INSERT OR REPLACE INTO t (rowid, a, b, c, d) VALUES (${rowid === null ? "NULL" : rowid}, ${values.map(literal).join(", ")});`,
          );
          const path = makeDb(
            `PRAGMA page_size=${pageSize}; CREATE TABLE t (a, b, c, d); ${inserts.join("\n")}`,
          );
          const expected = expectSameRows(path, "t", COLUMNS);
          expect(expected.length).toBe(new Set(expected.map((r) => r.rowid)).size);
          rmSync(path);
        },
      ),
      // No shrinking: each run spawns sqlite3 twice, and its values are large.
      { numRuns: 40, endOnFailure: true },
    );
  });

  it("reads thousands of rows through a b-tree several levels deep, after deletes and updates", () => {
    const path =
      makeDb(`PRAGMA page_size=512; CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n);
      WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 6000)
      INSERT INTO t (name, n) SELECT printf('row %d %s', i, substr(hex(randomblob(40)), 1, i % 70)), i * 7919 FROM k;
      DELETE FROM t WHERE id % 3 = 0;
      UPDATE t SET name = name || hex(randomblob(300)) WHERE id % 7 = 1;
      UPDATE t SET n = NULL WHERE id % 11 = 0;`);
    // An interior page of 512 bytes points to at most 61 pages: more leaves take three levels.
    expect(readFileSync(path).readUInt32BE(28)).toBeGreaterThan(1000);
    const rows = expectSameRows(path, "t", ["id", "name", "n"]);
    expect(rows.length).toBe(4000);
  });

  it("reads an INTEGER PRIMARY KEY as the rowid, and a row older than an added column", () => {
    const path = makeDb(`CREATE TABLE t ("Id" integer PRIMARY KEY, v TEXT);
      INSERT INTO t VALUES (-5, 'a'), (9007199254740993, 'b'), (NULL, 'c');
      ALTER TABLE t ADD COLUMN w;
      ALTER TABLE t ADD COLUMN x TEXT DEFAULT 'none';
      ALTER TABLE t ADD COLUMN y INTEGER DEFAULT -12;
      ALTER TABLE t ADD COLUMN z DEFAULT X'00ff';
      INSERT INTO t VALUES (3, 'd', 1.5, 'set', 4, NULL);`);
    const rows = expectSameRows(path, "t", ["id", "v", "w", "x", "y", "z"]);
    expect(rows.map((r) => r.id)).toEqual([-5, 3, 9007199254740993n, 9007199254740994n]);
    expect(rows[0]).toEqual({
      id: -5,
      v: "a",
      w: null,
      x: "none",
      y: -12,
      z: Uint8Array.from([0, 255]),
    });
  });

  it("finds quoted, commented and constrained columns as SQLite declares them", () => {
    const path = makeDb(`CREATE TABLE "my ""t""" ( -- a comment, with a comma
      [first col] TEXT NOT NULL DEFAULT 'x, y', /* another, ( */
      \`second\` VARCHAR(10, 2) CHECK (length(\`second\`) > 0) COLLATE NOCASE,
      "k" INTEGER,
      'fourth' REAL,
      CONSTRAINT pk PRIMARY KEY ("K" DESC),
      UNIQUE ("second"),
      FOREIGN KEY (fourth) REFERENCES other(id)
    );
    INSERT INTO "my ""t""" VALUES ('one', 'two', 10, 2.5), ('1', '2', -3, NULL);`);
    const rows = expectSameRows(path, 'my "t"', ["first col", "second", "k", "fourth"]);
    expect(rows.map((r) => r.k)).toEqual([-3, 10]);
  });

  it("reads the todos table as Copilot makes it", () => {
    const path =
      makeDb(`CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT, description TEXT, status TEXT, created_at TEXT, updated_at TEXT);
      CREATE TABLE todo_deps (todo_id TEXT, depends_on TEXT, PRIMARY KEY (todo_id, depends_on));
      INSERT INTO todos (id, title, status) VALUES ('write-parser', 'Writing the parser', 'in_progress'), ('add-tests', 'Adding tests', 'pending');
      INSERT INTO todos (id, title, description, status) VALUES ('x', 'X', 'waits on CI', 'blocked');
      UPDATE todos SET status = 'done' WHERE id = 'add-tests';`);
    const rows = expectSameRows(path, "TODOS", ["id", "title", "description", "status"]);
    expect(rows.map((r) => r.status)).toEqual(["in_progress", "done", "blocked"]);
  });

  it("names the file when the table or a column is missing", () => {
    const path = makeDb("CREATE TABLE other (a);");
    expect(() => readSqliteTable(path, "todos", ["id"])).toThrow(`${path}: no table todos in it`);
    const empty = join(root, "empty.db");
    writeFileSync(empty, "");
    expect(() => readSqliteTable(empty, "todos", ["id"])).toThrow(/no table todos/);
    expect(() => readSqliteTable(path, "other", ["b"])).toThrow(/has no column b/);
  });

  it("leaves UTF-16 and WITHOUT ROWID tables to SQLite itself", () => {
    const utf16 = makeDb(
      "PRAGMA encoding='UTF-16le'; CREATE TABLE todos (id, status); INSERT INTO todos VALUES ('a', 'pending');",
    );
    expect(() => readSqliteTable(utf16, "todos", ["id"])).toThrow(SqliteUnsupportedError);
    expect(() => readSqliteTable(utf16, "todos", ["id"])).toThrow(/UTF-16/);
    expect(readSqliteTableRows(utf16, "todos", ["id", "status"])).toEqual([
      { id: "a", status: "pending" },
    ]);
    const noRowid = makeDb(
      "CREATE TABLE todos (id TEXT PRIMARY KEY, status) WITHOUT ROWID; INSERT INTO todos VALUES ('b', 'done');",
    );
    expect(() => readSqliteTable(noRowid, "todos", ["id"])).toThrow(/WITHOUT ROWID/);
    expect(readSqliteTableRows(noRowid, "todos", ["id", "status"])).toEqual([
      { id: "b", status: "done" },
    ]);
    // Any other error is not handed on: the caller allows the stop.
    expect(() => readSqliteTableRows(join(root, "none.db"), "todos", ["id"])).toThrow(
      SqliteFileError,
    );
  });
});

describe.skipIf(!hasSqlite3)("the CREATE TABLE text", () => {
  const name = fc.oneof(
    fc.stringMatching(/^c_[a-z0-9_]{0,8}$/).map((n) => ({ n, sql: n })),
    text(1, 12).map((n) => ({ n, sql: q(n) })),
    text(1, 12).map((n) => ({ n, sql: `\`${n.replaceAll("`", "``")}\`` })),
    text(1, 12)
      .filter((n) => !n.includes("]"))
      .map((n) => ({ n, sql: `[${n}]` })),
  );
  const type = fc.constantFrom(
    "",
    "TEXT",
    "INT",
    "VARCHAR(20)",
    "DOUBLE PRECISION",
    "NUMERIC(10, 2)",
    "BLOB",
  );
  const constraint = fc.constantFrom(
    "",
    "NOT NULL",
    "DEFAULT 'a, b'",
    "DEFAULT (1 + 2)",
    "CHECK (1 > 0)",
    "COLLATE NOCASE",
    "UNIQUE",
    "DEFAULT -5",
    "/* a, ( */",
    "-- a, (\n",
    "REFERENCES other(id) ON DELETE CASCADE",
  );

  it("finds every column SQLite finds, in order, with the rowid alias", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(name, type, constraint), {
          minLength: 1,
          maxLength: 8,
          selector: ([c]) => c.n.replace(/[A-Z]/g, (l) => l.toLowerCase()),
        }),
        fc.option(fc.nat(7)),
        fc.constantFrom("", ", UNIQUE (1)", ", CHECK (a > 0)", ", CONSTRAINT x CHECK (1)"),
        (columns, keyAt, tail) => {
          const key = keyAt === null ? -1 : keyAt % columns.length;
          const defs = columns.map(([c, t, k], i) =>
            i === key ? `${c.sql} INTEGER PRIMARY KEY ${k}` : `${c.sql} ${t} ${k}`,
          );
          const uniqueTail = tail === ", UNIQUE (1)" ? `, UNIQUE (${columns[0]![0].sql})` : "";
          const checkTail = tail.includes("CHECK") ? ", CHECK (1)" : "";
          const values = (row: number) =>
            columns.map((_, i) => (i === key ? String(row * 10 + 1) : `'v${row}${i}'`)).join(", ");
          const path = makeDb(
            `CREATE TABLE t (${defs.join(",\n")}${uniqueTail}${checkTail});
             INSERT INTO t VALUES (${values(1)}); INSERT INTO t VALUES (${values(2)});`,
          );
          const names = columns.map(([c]) => c.n);
          const rows = expectSameRows(path, "t", names);
          expect(rows).toHaveLength(2);
          rmSync(path);
        },
      ),
      { numRuns: 60, endOnFailure: true },
    );
  });
});
