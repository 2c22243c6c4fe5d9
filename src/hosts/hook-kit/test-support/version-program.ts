import { writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Writes into `dir` a program `bin` that prints `output` (a host's `--version` answer, as that
 * release prints it) whatever it is asked, for the doctors' version checks. Returns `dir`, to put
 * on PATH.
 */
export function versionProgram(dir: string, bin: string, output: string): string {
  writeFileSync(join(dir, bin), `#!/bin/sh\necho "${output}"\n`, { mode: 0o755 });
  return dir;
}
