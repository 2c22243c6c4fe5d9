import { createRequire } from "node:module";
import { corrupt } from "./sqlite-record.js";

// `node:fs` through require: an ES module import builds its whole namespace (streams included).
const fs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");

/**
 * A database's write-ahead log (`<db>-wal`), read the way SQLite recovers one
 * (https://www.sqlite.org/fileformat2.html#walformat): frames are valid from the first on while
 * their salts match the header's and their cumulative checksums verify; those up to the last
 * valid commit frame are the database's newest state, later ones a transaction not committed.
 * The -shm index is not read: it only speeds up finding frames.
 */

export interface WalView {
  pageSize: number;
  /** Page number => file offset of the page's newest committed content. */
  pages: Map<number, number>;
  /** The database's size in pages after the last commit. */
  dbSize: number;
}

const HEADER = 32;
const FRAME_HEADER = 24;
/** Larger than any WAL SQLite leaves behind with its default checkpoints (about 4 MiB). */
export const MAX_WAL_BYTES = 1 << 30;

let sum0 = 0;
let sum1 = 0;

/** Adds `length` bytes (a multiple of 8) at `at` to the running checksum (sum0, sum1). */
function addChecksum(view: DataView, at: number, length: number, little: boolean): void {
  let s0 = sum0;
  let s1 = sum1;
  for (let i = at; i < at + length; i += 8) {
    s0 = (s0 + view.getUint32(i, little) + s1) >>> 0;
    s1 = (s1 + view.getUint32(i + 4, little) + s0) >>> 0;
  }
  sum0 = s0;
  sum1 = s1;
}

function readAt(fd: number, buffer: Buffer, length: number, position: number): number {
  let read = 0;
  while (read < length) {
    const n = fs.readSync(fd, buffer, read, length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return read;
}

/** The committed frames of the WAL open as `fd` (`size` bytes), or null when it has none. */
export function readWal(fd: number, size: number): WalView | null {
  if (size < HEADER) return null;
  if (size > MAX_WAL_BYTES) throw corrupt(`its WAL is ${size} bytes, over ${MAX_WAL_BYTES}`);
  const header = Buffer.alloc(HEADER);
  if (readAt(fd, header, HEADER, 0) < HEADER) return null;
  const magic = header.readUInt32BE(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return null;
  // The magic's low bit says in which byte order the checksums read the file's words.
  const little = magic === 0x377f0682;
  const pageSize = header.readUInt32BE(8);
  if (header.readUInt32BE(4) !== 3007000) return null;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return null;
  const headerView = new DataView(header.buffer, header.byteOffset, HEADER);
  sum0 = 0;
  sum1 = 0;
  addChecksum(headerView, 0, 24, little);
  if (sum0 !== header.readUInt32BE(24) || sum1 !== header.readUInt32BE(28)) return null;
  const salt1 = header.readUInt32BE(16);
  const salt2 = header.readUInt32BE(20);

  const frameSize = FRAME_HEADER + pageSize;
  const frames = Math.floor((size - HEADER) / frameSize);
  const perChunk = Math.max(1, Math.floor((1 << 20) / frameSize));
  const chunk = Buffer.alloc(perChunk * frameSize);
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.length);
  const pending = new Map<number, number>();
  const pages = new Map<number, number>();
  let dbSize = 0;
  for (let first = 0; first < frames; first += perChunk) {
    const count = Math.min(perChunk, frames - first);
    const position = HEADER + first * frameSize;
    const got = Math.floor(readAt(fd, chunk, count * frameSize, position) / frameSize);
    for (let i = 0; i < got; i++) {
      const at = i * frameSize;
      const page = chunk.readUInt32BE(at);
      if (page === 0) return done();
      if (chunk.readUInt32BE(at + 8) !== salt1 || chunk.readUInt32BE(at + 12) !== salt2) {
        return done();
      }
      addChecksum(view, at, 8, little);
      addChecksum(view, at + FRAME_HEADER, pageSize, little);
      if (sum0 !== chunk.readUInt32BE(at + 16) || sum1 !== chunk.readUInt32BE(at + 20)) {
        return done();
      }
      pending.set(page, position + at + FRAME_HEADER);
      const commitSize = chunk.readUInt32BE(at + 4);
      if (commitSize !== 0) {
        for (const [p, offset] of pending) pages.set(p, offset);
        pending.clear();
        dbSize = commitSize;
      }
    }
    if (got < count) break;
  }
  return done();

  function done(): WalView | null {
    return dbSize === 0 ? null : { pageSize, pages, dbSize };
  }
}
