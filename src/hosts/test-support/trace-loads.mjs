// Loaded with `node --import`: registers a resolve hook that prints every module URL a process loads.
import { register } from "node:module";

const hooks = `
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  process.stderr.write("LOADED " + resolved.url + "\\n");
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
