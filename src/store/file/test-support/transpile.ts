import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The package's `src` folder. */
export const SRC_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

const RELATIVE_IMPORT = /(?:import|export)\s[^'"]*?from\s+["'](\.{1,2}\/[^"']+)\.js["']/g;

/**
 * Compiles a TypeScript entry file and everything it imports relatively into
 * plain JavaScript under a fresh temporary folder, so a child process can run
 * the real store code with nothing but `node`. Returns the compiled entry.
 */
export function transpileForChild(entry: string): { file: string; dir: string } {
  const out = mkdtempSync(join(tmpdir(), "tc-child-"));
  const pending = [resolve(entry)];
  const done = new Set<string>();
  while (pending.length > 0) {
    const source = pending.pop()!;
    if (done.has(source)) continue;
    done.add(source);
    const text = readFileSync(source, "utf8");
    for (const match of text.matchAll(RELATIVE_IMPORT)) {
      pending.push(resolve(dirname(source), `${match[1]}.ts`));
    }
    const js = ts.transpileModule(text, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: false,
      },
      fileName: source,
    }).outputText;
    const target = join(out, relative(SRC_DIR, source)).replace(/\.ts$/, ".js");
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, js);
  }
  writeFileSync(join(out, "package.json"), JSON.stringify({ type: "module" }));
  return {
    file: join(out, relative(SRC_DIR, resolve(entry))).replace(/\.ts$/, ".js"),
    dir: out,
  };
}
