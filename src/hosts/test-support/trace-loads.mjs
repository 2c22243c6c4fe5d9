// Loaded with `node --import`: prints every ES module a process loads as it resolves
// (`LOADED <url>`), and at exit what trace-loads.cjs prints. The hooks run on Node's loader
// thread, whose `process.stderr` hands its text to the main thread: a line written there could
// be lost when the process ends first, so each is written to the descriptor at once.
import { createRequire, register } from "node:module";

const hooks = `
import { writeSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  writeSync(2, "LOADED " + resolved.url + "\\n");
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
createRequire(import.meta.url)("./trace-loads.cjs");
