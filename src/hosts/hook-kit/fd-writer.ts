import { writeFileSync, writeSync } from "node:fs";
import { fdBlocks } from "./fd-blocks.js";

/** What a hook writes to: `write(text)`, as a stream offers it. */
export interface TextWriter {
  write(text: string): unknown;
}

/** A writer that tells whether all it was given is written (nothing waits in a stream). */
export interface FdWriter extends TextWriter {
  /** True until a write had to go through the stream, whose bytes may still be queued. */
  readonly direct: boolean;
}

/**
 * Writes to file descriptor `fd` directly, and to `stream()` only when that
 * cannot be done (a non-blocking pipe that is full). `process.stdout` on a pipe
 * is a socket stream: creating it loads Node's net and stream modules, a few
 * milliseconds of a hook process's start-up, for the one line a hook prints.
 * Once the stream is in use, every later write goes through it too, so the
 * output keeps its order. A reader that has gone away (EPIPE) is not an error:
 * the host decided not to listen.
 */
/** What the writer falls back to: a stream, which takes bytes as well as text. */
export interface ByteWriter {
  write(chunk: string | Uint8Array): unknown;
}

export function fdWriter(
  fd: number,
  stream: () => ByteWriter,
  write: typeof writeSync = writeSync,
): FdWriter {
  let fallback: ByteWriter | null = null;
  return {
    get direct() {
      return fallback === null;
    },
    write(text: string) {
      if (fallback !== null) return fallback.write(text);
      const bytes = Buffer.from(text, "utf8");
      let done = 0;
      try {
        while (done < bytes.length) done += write(fd, bytes, done, bytes.length - done);
        return true;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EPIPE") return false;
        if (code !== "EAGAIN" && code !== "EWOULDBLOCK") throw error;
      }
      fallback = stream();
      // The bytes left, not their text: the descriptor may have taken half of a character.
      return fallback.write(bytes.subarray(done));
    },
  };
}

/**
 * Writes all of `text` to `fd`; true when nothing of it waits in a stream (as
 * {@link FdWriter.direct}). An empty text is not looked at further (an allowed
 * stop prints nothing). A descriptor that `blocks` takes it in one C++ call
 * (`writeFileSync` with text, as the hook wrote its question): a new process's
 * first `writeSync` and the buffer it needs cost the hook 0.2 ms more. One that
 * does not block may be full, and the C++ call would throw EAGAIN without
 * telling how much it wrote: that goes through {@link fdWriter}, which hands
 * the rest to the stream. A reader that has gone away (EPIPE) is not an error.
 */
export function writeWhole(
  fd: number,
  text: string,
  stream: () => ByteWriter,
  blocks: (fd: number) => boolean = fdBlocks,
): boolean {
  if (text === "") return true;
  if (!blocks(fd)) {
    const out = fdWriter(fd, stream);
    out.write(text);
    return out.direct;
  }
  try {
    writeFileSync(fd, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPIPE") throw error;
  }
  return true;
}
