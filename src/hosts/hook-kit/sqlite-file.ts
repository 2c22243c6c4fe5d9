import { createRequire } from "node:module";
import {
  corrupt,
  decodeRecord,
  readSize,
  readVarint,
  SqliteFileError,
  SqliteUnsupportedError,
  type SqliteValue,
  varintEnd,
} from "./sqlite-record.js";
import { foldName, parseCreateTable } from "./sqlite-schema.js";
import { readWal, type WalView } from "./sqlite-wal.js";

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
/** Bytes of pages one read may take: far more than a todo list, far less than a hang. */
const MAX_BYTES = 256 << 20;
/** SQLite's own limit on a b-tree's depth (BTCURSOR_MAX_DEPTH). */
const MAX_DEPTH = 20;
const MAX_PAYLOAD = 1_000_000_000;
const MAGIC = "SQLite format 3\0";
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
    throw corrupt("it is not a regular file");
  }
  return { fd, size: info.size };
}

function readAt(fd: number, length: number, position: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const n = fs.readSync(fd, buffer, read, length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
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
  let fd: number;
  try {
    fd = fs.openSync(`${path}-journal`, OPEN_FLAGS);
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

/** The database's pages: the newest committed copy, from the WAL or else the main file. */
class Pages {
  pageSize = 0;
  usable = 0;
  /** Pages in the database; 0 for an empty file. */
  count = 0;
  private visited = new Set<number>();
  private bytes = 0;

  constructor(
    private mainFd: number,
    mainSize: number,
    private walFd: number | null,
    private wal: WalView | null,
  ) {
    if (mainSize === 0 && wal === null) return;
    if (mainSize > 0 && mainSize < 100)
      throw corrupt(`it is ${mainSize} bytes, shorter than a header`);
    const fileHeader = mainSize > 0 ? readAt(mainFd, 100, 0) : null;
    const pageSize = fileHeader ? pageSizeOf(fileHeader) : wal!.pageSize;
    if (wal !== null && wal.pageSize !== pageSize) {
      throw corrupt(`its WAL has ${wal.pageSize}-byte pages, the file ${pageSize}-byte ones`);
    }
    this.pageSize = pageSize;
    this.count = 1;
    const header = this.read(1).subarray(0, 100);
    this.visited.clear();
    if (pageSizeOf(header) !== pageSize) throw corrupt("its page 1 changed its page size");
    if (header[18]! > 2 || header[19]! > 2) {
      throw new SqliteUnsupportedError(`file format version ${header[18]}/${header[19]}`);
    }
    const reserved = header[20]!;
    this.usable = pageSize - reserved;
    if (this.usable < 480) throw corrupt(`${reserved} reserved bytes leave too little of a page`);
    if (header[21] !== 64 || header[22] !== 32 || header[23] !== 32) {
      throw corrupt("its payload fractions are not 64/32/32");
    }
    const encoding = header.readUInt32BE(56);
    if (encoding === 2 || encoding === 3) {
      throw new SqliteUnsupportedError("its text is UTF-16, and this reader reads UTF-8 only");
    }
    if (encoding !== 1 && encoding !== 0) throw corrupt(`its text encoding is ${encoding}`);
    const inHeader = header.readUInt32BE(28);
    // The header's size counts only when a writer that knew it updated it (change counter match).
    const valid = inHeader > 0 && header.readUInt32BE(24) === header.readUInt32BE(92);
    this.count = wal?.dbSize ?? (valid ? inHeader : Math.floor(mainSize / pageSize));
  }

  /** Page `n`, once per read: a page reached twice is a cycle. */
  read(n: number): Buffer {
    if (!Number.isInteger(n) || n < 1 || n > this.count) {
      throw corrupt(`page ${n} is out of range (it has ${this.count} pages)`);
    }
    if (this.visited.has(n)) throw corrupt(`page ${n} is reached twice (a cycle)`);
    this.visited.add(n);
    this.bytes += this.pageSize;
    if (this.bytes > MAX_BYTES) throw corrupt(`a read of over ${MAX_BYTES} bytes of pages`);
    const inWal = this.wal?.pages.get(n);
    const page =
      inWal !== undefined
        ? readAt(this.walFd!, this.pageSize, inWal)
        : readAt(this.mainFd, this.pageSize, (n - 1) * this.pageSize);
    if (page.length < this.pageSize)
      throw corrupt(`page ${n} is past the end of the file (truncated)`);
    return page;
  }
}

function pageSizeOf(header: Buffer): number {
  if (header.length < 100 || header.toString("latin1", 0, 16) !== MAGIC) {
    throw corrupt("it is not a SQLite 3 database (no header)");
  }
  const raw = header.readUInt16BE(16);
  const size = raw === 1 ? 65536 : raw;
  if (size < 512 || (size & (size - 1)) !== 0) throw corrupt(`its page size is ${raw}`);
  return size;
}

/** Calls `cell` with each row's rowid and record, in rowid order, of the table rooted at `root`. */
function walkTable(
  pages: Pages,
  root: number,
  cell: (rowid: number | bigint, payload: Buffer) => void,
  depth = 0,
): void {
  if (depth > MAX_DEPTH) throw corrupt(`its b-tree is more than ${MAX_DEPTH} levels deep`);
  const page = pages.read(root);
  const at = root === 1 ? 100 : 0;
  const kind = page[at]!;
  if (kind !== 0x05 && kind !== 0x0d) {
    throw corrupt(`page ${root} is not a table b-tree page (type ${kind})`);
  }
  const interior = kind === 0x05;
  const cells = page.readUInt16BE(at + 3);
  const pointers = at + (interior ? 12 : 8);
  const usable = pages.usable;
  if (pointers + 2 * cells > usable) throw corrupt(`page ${root} claims ${cells} cells`);
  for (let i = 0; i < cells; i++) {
    const offset = page.readUInt16BE(pointers + 2 * i);
    if (offset < pointers + 2 * cells || offset >= usable) {
      throw corrupt(`page ${root} has a cell at ${offset}, outside its content area`);
    }
    if (interior) {
      if (offset + 4 > usable) throw corrupt(`page ${root} has a cut cell`);
      walkTable(pages, page.readUInt32BE(offset), cell, depth + 1);
      continue;
    }
    const size = readSize(page, offset, usable, MAX_PAYLOAD, `a payload size on page ${root}`);
    const rowid = readVarint(page, varintEnd, usable);
    cell(rowid, payloadOf(pages, page, varintEnd, size, root));
  }
  if (interior) walkTable(pages, page.readUInt32BE(at + 8), cell, depth + 1);
}

/** A leaf cell's whole payload: its bytes on the page, then its overflow chain's. */
function payloadOf(pages: Pages, page: Buffer, at: number, size: number, n: number): Buffer {
  const u = pages.usable;
  const x = u - 35;
  let local = size;
  if (size > x) {
    const m = Math.floor(((u - 12) * 32) / 255) - 23;
    const k = m + ((size - m) % (u - 4));
    local = k <= x ? k : m;
  }
  if (at + local + (local < size ? 4 : 0) > u) throw corrupt(`a cell on page ${n} runs past it`);
  if (local === size) return page.subarray(at, at + size);
  const payload = Buffer.allocUnsafe(size);
  page.copy(payload, 0, at, at + local);
  let filled = local;
  let next = page.readUInt32BE(at + local);
  while (filled < size) {
    if (next === 0) throw corrupt(`an overflow chain from page ${n} ends early`);
    const overflow = pages.read(next);
    const take = Math.min(u - 4, size - filled);
    overflow.copy(payload, filled, 4, 4 + take);
    filled += take;
    next = overflow.readUInt32BE(0);
  }
  return payload;
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
