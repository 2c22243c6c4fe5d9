import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, type writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fdWriter } from "./fd-writer.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A stream that records what it was given. */
function recorder() {
  const chunks: Buffer[] = [];
  const got: string[] = [];
  const write = (chunk: string | Uint8Array) => {
    chunks.push(Buffer.from(chunk));
    got.push(Buffer.from(chunk).toString("utf8"));
  };
  return { got, chunks, stream: { write } };
}

const errno = (code: string) => Object.assign(new Error(code), { code });

describe("fdWriter", () => {
  it("writes whole texts to the descriptor, in order, without the stream", () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-fd-writer-"));
    made.push(dir);
    const fd = openSync(join(dir, "out"), "w");
    const { got, stream } = recorder();
    const out = fdWriter(fd, () => stream);
    const texts = ['{"decision":"block"}\n', "é ✓ 🙂\n", "x".repeat(200_000)];
    for (const text of texts) expect(out.write(text)).toBe(true);
    expect(out.direct).toBe(true);
    closeSync(fd);
    expect(readFileSync(join(dir, "out"), "utf8")).toBe(texts.join(""));
    expect(got).toEqual([]);
  });

  it("hands the rest to the stream when the descriptor would block, and keeps using it", () => {
    const { got, stream } = recorder();
    const written: string[] = [];
    let calls = 0;
    // Takes 5 bytes, then says the pipe is full.
    const write = ((_fd: number, buffer: Buffer, offset: number, length: number) => {
      if (calls++ > 0) throw errno("EAGAIN");
      written.push(buffer.subarray(offset, offset + Math.min(5, length)).toString());
      return Math.min(5, length);
    }) as unknown as typeof writeSync;
    const out = fdWriter(1, () => stream, write);
    expect(out.direct).toBe(true);
    out.write("hello, world\n");
    // The stream may hold bytes yet: the process must not end before it drains.
    expect(out.direct).toBe(false);
    out.write("second\n");
    expect(written.join("") + got.join("")).toBe("hello, world\nsecond\n");
    expect(got).toEqual([", world\n", "second\n"]);
  });

  it("never splits a character between the descriptor and the stream", () => {
    const { chunks, stream } = recorder();
    const taken: Buffer[] = [];
    let calls = 0;
    // Takes 2 bytes of "aé…": "a" and the first byte of "é".
    const write = ((_fd: number, buffer: Buffer, offset: number) => {
      if (calls++ > 0) throw errno("EAGAIN");
      taken.push(Buffer.from(buffer.subarray(offset, offset + 2)));
      return 2;
    }) as unknown as typeof writeSync;
    fdWriter(1, () => stream, write).write("aé ✓\n");
    expect(Buffer.concat([...taken, ...chunks]).toString("utf8")).toBe("aé ✓\n");
  });

  it("treats a reader gone away as no error, and any other failure as one", () => {
    const { got, stream } = recorder();
    const gone = fdWriter(1, () => stream, (() => {
      throw errno("EPIPE");
    }) as unknown as typeof writeSync);
    expect(gone.write("nobody reads this\n")).toBe(false);
    expect(got).toEqual([]);
    const broken = fdWriter(1, () => stream, (() => {
      throw errno("EIO");
    }) as unknown as typeof writeSync);
    expect(() => broken.write("x")).toThrow("EIO");
  });
});
