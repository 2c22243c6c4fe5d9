import { createRequire } from "node:module";
import {
  corrupt,
  readSize,
  readVarint,
  SqliteUnsupportedError,
  varintEnd,
} from "./sqlite-record.js";
import type { WalView } from "./sqlite-wal.js";

// `node:fs` through require: an ES module import builds its whole namespace (streams included).
const fs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");

/**
 * A database's pages (the newest committed copy of each, from the WAL or else the main file)
 * and the walk of a table b-tree over them, leaf cells and overflow chains
 * (https://www.sqlite.org/fileformat2.html#b_tree_pages). Every page is read at most once
 * per read: a page reached again is a cycle, so a corrupt file cannot make a walk loop.
 */

/** Bytes of pages one read may take: far more than a todo list, far less than a hang. */
const MAX_BYTES = 256 << 20;
/** SQLite's own limit on a b-tree's depth (BTCURSOR_MAX_DEPTH). */
const MAX_DEPTH = 20;
const MAX_PAYLOAD = 1_000_000_000;
const MAGIC = "SQLite format 3\0";

export function readAt(fd: number, length: number, position: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const n = fs.readSync(fd, buffer, read, length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
}

/** The database's pages: the newest committed copy, from the WAL or else the main file. */
export class Pages {
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
export function walkTable(
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
  // Checked before the allocation: a corrupt size must not claim memory the file cannot fill.
  const pagesLeft = Math.min(pages.count, Math.floor(MAX_BYTES / pages.pageSize));
  if (size - local > pagesLeft * (u - 4)) {
    throw corrupt(`a cell on page ${n} claims ${size} bytes, more than the file holds`);
  }
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
