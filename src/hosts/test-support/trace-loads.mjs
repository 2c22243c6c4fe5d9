// Loaded with `node --import`: prints every ES module a process loads as it resolves
// (`LOADED <url>`), and at exit what trace-loads.cjs prints.
import { createRequire, register } from "node:module";

const hooks = `
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  process.stderr.write("LOADED " + resolved.url + "\\n");
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
createRequire(import.meta.url)("./trace-loads.cjs");
