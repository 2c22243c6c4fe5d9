import { pathToFileURL } from "node:url";
import { probe } from "./doctor-files.js";

/**
 * Whether a module loads in a fresh Node process (the host's own loader may
 * differ, but a module Node cannot import is broken for every host). Resolves
 * to null when it loads, else the first line of the error.
 */
export async function loadProblem(
  file: string,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<string | null> {
  const url = pathToFileURL(file).href;
  const run = await probe(
    process.execPath,
    ["--input-type=module", "-e", `await import(${JSON.stringify(url)});`],
    env,
    cwd,
  );
  if (run.ok) return null;
  const line =
    run.output.split("\n").find((l) => /Error|error:/.test(l)) ?? run.output.split("\n")[0] ?? "";
  return line.trim().slice(0, 200) || "it did not load";
}
