import { readFileSync } from "node:fs";

/** O_NONBLOCK in the `flags` line of `/proc/self/fdinfo` (octal; the same on x86 and Arm). */
const O_NONBLOCK = 0o4000;

/**
 * Whether `fd` blocks when a read finds nothing yet or a write finds no room (a host's pipe
 * does): its flags, from `/proc/self/fdinfo`. False when they cannot be read, so the caller
 * takes its careful path. Node's whole-file calls on a descriptor (`readFileSync(fd)`,
 * `writeFileSync(fd)`) are one C++ call each, cheap in a new process, but one that meets EAGAIN
 * throws without telling how much it had read or written: they are safe only where this is true.
 */
export function fdBlocks(fd: number): boolean {
  let info: string;
  try {
    info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
  } catch {
    return false;
  }
  const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
  return flags !== undefined && (Number.parseInt(flags, 8) & O_NONBLOCK) === 0;
}
