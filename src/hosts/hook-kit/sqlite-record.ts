/**
 * The byte-level parts of the SQLite 3 file format (https://www.sqlite.org/fileformat2.html)
 * that a table read needs: varints and records. Shared by the pure reader's other files.
 */

/** A value as read: integers beyond Number.MAX_SAFE_INTEGER are bigints, blobs Uint8Arrays. */
export type SqliteValue = null | number | bigint | string | Uint8Array;

/** The file is not a well-formed SQLite database (or not one this reader trusts). */
export class SqliteFileError extends Error {
  override name = "SqliteFileError";
}

/**
 * A well-formed database in a form the pure reader does not read (UTF-16 text, a WITHOUT ROWID
 * or generated-column table): the caller may ask SQLite itself.
 */
export class SqliteUnsupportedError extends SqliteFileError {
  override name = "SqliteUnsupportedError";
}

export function corrupt(what: string): SqliteFileError {
  return new SqliteFileError(what);
}

/** A safe integer as a number, else a bigint (64-bit signed, as SQLite stores them). */
export function intValue(big: bigint): number | bigint {
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(big)
    : big;
}

/** Where the last `readVarint` ended: a module variable spares an object per call. */
export let varintEnd = 0;

/** The varint at `at` (1 to 9 bytes, big-endian, 64-bit two's complement), not reading past `end`. */
export function readVarint(bytes: Uint8Array, at: number, end: number): number | bigint {
  let value = 0;
  // Seven bytes hold 49 bits: a number counts them exactly.
  for (let i = 0; i < 7; i++) {
    if (at + i >= end) throw corrupt("a varint runs past the end of its cell");
    const byte = bytes[at + i]!;
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) {
      varintEnd = at + i + 1;
      return value;
    }
  }
  if (at + 8 > end) throw corrupt("a varint runs past the end of its cell");
  let big = BigInt(value) * 128n + BigInt(bytes[at + 7]! & 0x7f);
  if (bytes[at + 7]! < 0x80) {
    varintEnd = at + 8;
  } else {
    if (at + 9 > end) throw corrupt("a varint runs past the end of its cell");
    big = big * 256n + BigInt(bytes[at + 8]!);
    varintEnd = at + 9;
  }
  return intValue(BigInt.asIntN(64, big));
}

/** A varint that must be a count or size: a whole number from 0 to `max`. */
export function readSize(bytes: Uint8Array, at: number, end: number, max: number, what: string) {
  const value = readVarint(bytes, at, end);
  if (typeof value !== "number" || value < 0 || value > max) {
    throw corrupt(`${what} is ${value}, outside 0..${max}`);
  }
  return value;
}

/** Bytes a value of serial type `type` takes in a record body. */
function serialSize(type: number): number {
  if (type < 12) {
    if (type === 10 || type === 11) throw corrupt(`a record uses the reserved serial type ${type}`);
    return [0, 1, 2, 3, 4, 6, 8, 8, 0, 0][type]!;
  }
  // Blobs are even, text odd.
  return type % 2 === 0 ? (type - 12) / 2 : (type - 13) / 2;
}

/**
 * The values of a record (the payload of a table b-tree leaf cell) at the column positions
 * `wanted` (undefined where the record has fewer values: a row older than an added column).
 */
export function decodeRecord(
  payload: Buffer,
  wanted: readonly number[],
): (SqliteValue | undefined)[] {
  const end = payload.length;
  const headerSize = readSize(payload, 0, end, end, "a record header size");
  const types: number[] = [];
  let at = varintEnd;
  while (at < headerSize) {
    types.push(readSize(payload, at, headerSize, Number.MAX_SAFE_INTEGER, "a serial type"));
    at = varintEnd;
  }
  if (at !== headerSize) throw corrupt("a record header runs past its stated size");
  const offsets: number[] = [];
  let body = headerSize;
  for (const type of types) {
    offsets.push(body);
    body += serialSize(type);
  }
  if (body > end) throw corrupt(`a record's values take ${body} bytes of a ${end}-byte payload`);
  return wanted.map((column) => {
    if (column >= types.length) return undefined;
    return decodeValue(payload, types[column]!, offsets[column]!);
  });
}

function decodeValue(payload: Buffer, type: number, at: number): SqliteValue {
  switch (type) {
    case 0:
      return null;
    case 1:
      return payload.readInt8(at);
    case 2:
      return payload.readInt16BE(at);
    case 3:
      return payload.readIntBE(at, 3);
    case 4:
      return payload.readInt32BE(at);
    case 5:
      return payload.readIntBE(at, 6);
    case 6:
      return intValue(payload.readBigInt64BE(at));
    case 7:
      return payload.readDoubleBE(at);
    case 8:
      return 0;
    case 9:
      return 1;
  }
  const size = serialSize(type);
  // A plain Uint8Array copy, not a view of the page.
  if (type % 2 === 0) return new Uint8Array(payload.subarray(at, at + size));
  return payload.toString("utf8", at, at + size);
}
