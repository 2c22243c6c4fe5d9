import { Readable } from "node:stream";
import type { HookIo } from "../hook-kit/process.js";

/** A hook's io for tests: `stdin` as given, stdout and stderr captured. */
export function captureIo(stdin: string, env: Record<string, string | undefined>, cwd: string) {
  const written = { stdout: "", stderr: "" };
  const io: HookIo = {
    stdout: {
      write: (t: string) => {
        written.stdout += t;
      },
    },
    stderr: {
      write: (t: string) => {
        written.stderr += t;
      },
    },
    stdin: Readable.from([Buffer.from(stdin)]),
    env,
    cwd,
  };
  return { io, out: () => written.stdout, err: () => written.stderr };
}
