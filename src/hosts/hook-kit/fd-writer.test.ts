import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, type writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assertBuilt, BUILT_DIST } from "../../test-support/built.js";
import { fdWriter, writeWhole } from "./fd-writer.js";

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

/** What became of 1 MiB a new process wrote to its stdout pipe with `writeWhole`. */
interface PipeRun {
  /** The bytes its stdout pipe delivered. */
  out: Buffer;
  /** What it reported on stderr: whether its pipe blocked, and what `writeWhole` returned. */
  report: { blocks: boolean; done: boolean };
  code: number | null;
}

/**
 * Runs `writeWhole(1, ...)` in a new process (the built package) on a pipe the parent first
 * does not read for 200 ms (the pipe fills), or closes at once (`hangUp`: the writer meets
 * EPIPE). `nonBlocking` makes Node's stdout stream first, which sets the pipe not to block.
 */
function writeToPipe(options: { nonBlocking: boolean; hangUp: boolean }): Promise<PipeRun> {
  assertBuilt("hosts/hook-kit/fd-writer.js", "hosts/hook-kit/fd-blocks.js");
  const script = `
    import { fdBlocks } from ${JSON.stringify(`${BUILT_DIST}/hosts/hook-kit/fd-blocks.js`)};
    import { writeWhole } from ${JSON.stringify(`${BUILT_DIST}/hosts/hook-kit/fd-writer.js`)};
    if (${options.nonBlocking}) process.stdout;
    const blocks = fdBlocks(1);
    // 1 MiB of numbered lines, with a character of two bytes in each, so order and splits show.
    let text = "";
    for (let i = 0; text.length < 1 << 20; i++) text += "line " + i + " é\\n";
    const done = writeWhole(1, text, () => process.stdout);
    process.stderr.write(JSON.stringify({ blocks, done }));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    if (options.hangUp) child.stdout.destroy();
    else {
      child.stdout.pause();
      child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
      setTimeout(() => child.stdout.resume(), 200);
    }
    child.on("error", reject);
    child.on("close", (code) => {
      let report: PipeRun["report"];
      try {
        report = JSON.parse(err) as PipeRun["report"];
      } catch {
        reject(new Error(`the writer said no report: ${err}`));
        return;
      }
      resolve({ out: Buffer.concat(chunks), report, code });
    });
  });
}

/** The text the script above writes. */
function expectedText(): string {
  let text = "";
  for (let i = 0; text.length < 1 << 20; i++) text += `line ${i} é\n`;
  return text;
}

describe("writeWhole", () => {
  it("writes whole texts to a descriptor, in one call when it blocks, else through fdWriter", () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-fd-writer-"));
    made.push(dir);
    const { got, stream } = recorder();
    const texts = ['{"decision":"block"}\n', "é ✓ 🙂\n", "x".repeat(200_000)];
    for (const blocks of [true, false]) {
      const fd = openSync(join(dir, `out-${blocks}`), "w");
      const blocking = () => blocks;
      for (const text of texts) expect(writeWhole(fd, text, () => stream, blocking)).toBe(true);
      closeSync(fd);
      expect(readFileSync(join(dir, `out-${blocks}`), "utf8")).toBe(texts.join(""));
    }
    expect(got).toEqual([]);
  });

  it("writes nothing of an empty text, not even to a descriptor that is not open", () => {
    const { got, stream } = recorder();
    const yes = () => true;
    const no = () => false;
    expect(writeWhole(987654, "", () => stream, yes)).toBe(true);
    expect(writeWhole(987654, "", () => stream, no)).toBe(true);
    expect(got).toEqual([]);
    expect(() => writeWhole(987654, "x", () => stream, yes)).toThrow(/EBADF/);
  });

  it("waits for a full pipe that blocks, and every byte arrives in order", async () => {
    const run = await writeToPipe({ nonBlocking: false, hangUp: false });
    expect(run.report).toEqual({ blocks: true, done: true });
    expect(run.out.toString("utf8")).toBe(expectedText());
    expect(run.code).toBe(0);
  });

  it("hands the rest to the stream when a pipe that does not block is full, losing nothing", async () => {
    const run = await writeToPipe({ nonBlocking: true, hangUp: false });
    // Not done: the stream holds bytes yet, and the process waits for them before it ends.
    expect(run.report).toEqual({ blocks: false, done: false });
    expect(run.out.toString("utf8")).toBe(expectedText());
    expect(run.code).toBe(0);
  });

  it("takes a reader gone away as no error", async () => {
    const run = await writeToPipe({ nonBlocking: false, hangUp: true });
    expect(run.report).toEqual({ blocks: true, done: true });
    expect(run.code).toBe(0);
  });
});
