import { writeSync } from "node:fs";

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
