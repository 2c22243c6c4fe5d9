import { createRequire } from "node:module";
import { Pages, readAt, walkTable } from "./sqlite-btree.js";
import {
  corrupt,
  decodeRecord,
  SqliteFileError,
  SqliteUnsupportedError,
  type SqliteValue,
} from "./sqlite-record.js";
import { foldName, parseCreateTable } from "./sqlite-schema.js";
import { readWal } from "./sqlite-wal.js";

// `node:fs` through require: an ES module import builds its whole namespace (streams included).
const fs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");

/**
 * A synchronous, read-only reader of one rowid table of a SQLite 3 database file, in plain
 * JavaScript (https://www.sqlite.org/fileformat2.html): a hook reads its host's small database
 * without loading SQLite or spawning a program. It reads the main file and its write-ahead log
 * and never writes, locks or creates anything. A corrupt file is an error naming the file and
 * what is wrong; every page is read at most once, so a cycle cannot make it loop.
 *
 * Integers beyond Number.MAX_SAFE_INTEGER are read as bigints; text must be UTF-8 (UTF-16
 * databases, WITHOUT ROWID and generated-column tables throw SqliteUnsupportedError, for the
 * caller to ask SQLite itself).
 */

export { SqliteFileError, SqliteUnsupportedError, type SqliteValue };

/** The file changed while it was read (a writer): read again. */
class ChangedWhileRead extends Error {}

const RETRIES = 3;
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/** The `columns` of every row of `table` in rowid order; throws when the file cannot be read. */
export function readSqliteTable(
  path: string,
  table: string,
  columns: readonly string[],
): Record<string, SqliteValue>[] {
  for (let attempt = 1; ; attempt++) {
    try {
      return readOnce(path, table, columns);
    } catch (error) {
      if (error instanceof ChangedWhileRead) {
        if (attempt < RETRIES) continue;
        throw new SqliteFileError(`${path} kept changing while it was read (${RETRIES} tries)`);
      }
      if (error instanceof SqliteFileError) {
        const Kind =
          error instanceof SqliteUnsupportedError ? SqliteUnsupportedError : SqliteFileError;
        throw new Kind(`${path}: ${error.message}`);
      }
      throw error;
    }
  }
}

/** A regular file open for reading, or null when there is none; a FIFO or device is an error. */
function openRegular(path: string): { fd: number; size: number } | null {
  let fd: number;
  try {
    fd = fs.openSync(path, OPEN_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const info = fs.fstatSync(fd);
  if (!info.isFile()) {
    fs.closeSync(fd);
    throw corrupt(`${path} is not a regular file`);
  }
  return { fd, size: info.size };
}

/**
 * What a writer changes: the main file's size, time and change counter, the WAL's identity,
 * size and header, whether a rollback journal is hot. Equal before and after a read => no
 * writer committed or wrote pages in between.
 */
function stateOf(path: string, mainFd: number): string {
  const main = fs.fstatSync(mainFd, { bigint: true });
  const counter = readAt(mainFd, 4, 24).toString("hex");
  const wal = fs.statSync(`${path}-wal`, { bigint: true, throwIfNoEntry: false });
  let walHeader = "";
  if (wal?.isFile()) {
    const file = openRegular(`${path}-wal`);
    if (file !== null) {
      walHeader = readAt(file.fd, 32, 0).toString("hex");
      fs.closeSync(file.fd);
    }
  }
  return [
    main.size,
    main.mtimeNs,
    counter,
    wal ? `${wal.ino}:${wal.size}:${wal.mtimeNs}:${walHeader}` : "-",
    journalIsHot(path),
  ].join(" ");
}

/**
 * A rollback journal whose first byte is not zero may belong to a writer that is rewriting the
 * main file (or died doing so): SQLite itself would roll it back before reading. An empty or
 * zeroed one (journal_mode=TRUNCATE or PERSIST) is a finished transaction.
 */
function journalIsHot(path: string): boolean {
  const journal = `${path}-journal`;
  // Mostly there is none: asked first, since a failed open costs the making of its error.
  if (!fs.existsSync(journal)) return false;
  let fd: number;
  try {
    fd = fs.openSync(journal, OPEN_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  try {
    return fs.fstatSync(fd).isFile() && (readAt(fd, 1, 0)[0] ?? 0) !== 0;
  } finally {
    fs.closeSync(fd);
  }
}

function readOnce(path: string, table: string, columns: readonly string[]) {
  const main = openRegular(path);
  if (main === null) throw corrupt("there is no such file");
  let walFd: number | null = null;
  try {
    const before = stateOf(path, main.fd);
    if (before.endsWith(" true")) {
      throw corrupt("a writer is in the middle of a transaction (its rollback journal is hot)");
    }
    const walFile = openRegular(`${path}-wal`);
    walFd = walFile?.fd ?? null;
    let rows: Record<string, SqliteValue>[];
    try {
      const wal = walFile === null ? null : readWal(walFile.fd, walFile.size);
      rows = readTable(new Pages(main.fd, main.size, walFd, wal), table, columns);
    } catch (error) {
      // A torn read of a page a writer was writing looks corrupt: it is the change that counts.
      if (error instanceof SqliteFileError && stateOf(path, main.fd) !== before) {
        throw new ChangedWhileRead();
      }
      throw error;
    }
    if (stateOf(path, main.fd) !== before) throw new ChangedWhileRead();
    return rows;
  } finally {
    fs.closeSync(main.fd);
    if (walFd !== null) fs.closeSync(walFd);
  }
}

function readTable(pages: Pages, table: string, columns: readonly string[]) {
  if (pages.count === 0) throw corrupt(`no table ${table} in it (it is empty)`);
  const wanted = foldName(table);
  let found: { root: number; sql: string } | null = null;
  walkTable(pages, 1, (_rowid, payload) => {
    const [type, name, root, sql] = decodeRecord(payload, [0, 1, 3, 4]);
    if (type === "table" && typeof name === "string" && foldName(name) === wanted) {
      if (typeof root !== "number" || typeof sql !== "string") {
        throw corrupt(`its schema row for ${table} has no root page or SQL`);
      }
      found = { root, sql };
    }
  });
  if (found === null) throw corrupt(`no table ${table} in it`);
  const { root, sql } = found as { root: number; sql: string };
  if (root === 0) throw new SqliteUnsupportedError(`${table} is a virtual table`);
  let shape: ReturnType<typeof parseCreateTable>;
  try {
    shape = parseCreateTable(sql);
  } catch (error) {
    if (error instanceof SqliteFileError) error.message = `table ${table}: ${error.message}`;
    throw error;
  }
  const rowidNames = new Set(["rowid", "oid", "_rowid_"]);
  const positions = columns.map((name) => {
    const index = shape.columns.findIndex((c) => foldName(c.name) === foldName(name));
    if (index >= 0) return index === shape.rowidColumn ? -1 : index;
    if (rowidNames.has(foldName(name))) return -1;
    throw corrupt(`table ${table} has no column ${name}`);
  });
  const rows: Record<string, SqliteValue>[] = [];
  let last: number | bigint | null = null;
  walkTable(pages, root, (rowid, payload) => {
    if (last !== null && rowid <= last) throw corrupt(`rowid ${rowid} comes after ${last}`);
    last = rowid;
    const values = decodeRecord(
      payload,
      positions.map((p) => Math.max(p, 0)),
    );
    const row: Record<string, SqliteValue> = {};
    columns.forEach((name, i) => {
      const position = positions[i]!;
      let value = position < 0 ? rowid : values[i];
      if (value === undefined) {
        const missing = shape.columns[position]!.missing;
        if ("complex" in missing) {
          throw new SqliteUnsupportedError(
            `column ${name} has a default this reader cannot compute`,
          );
        }
        value = missing.value instanceof Uint8Array ? missing.value.slice() : missing.value;
      }
      row[name] = value;
    });
    rows.push(row);
  });
  return rows;
}
