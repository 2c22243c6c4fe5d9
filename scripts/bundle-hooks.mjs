// Bundles each host's hook process into one CommonJS file, `dist/hook/<host>.cjs`,
// from the modules tsc built. A hook process starts once per agent event: reading
// one file instead of some fifty modules, compiled from V8's code cache
// (src/hosts/hook-kit/code-cache.ts), is most of what separates it from a bare
// `node` start. Packages and Node's own modules stay requires (those a stop never
// uses are loaded on first use); the PostgreSQL store stays the unbundled ES
// module it is in `dist/store/postgres/`, imported only when a database is named.
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

/** Every host with a hook process (`HOOK_RUNNERS` in src/hosts/hook-kit/runners.ts) and its runner. */
const HOSTS = {
  "claude-code": ["runClaudeCodeHook", "CLAUDE_CODE_HOOK"],
  codex: ["runCodexHook", "CODEX_HOOK"],
  copilot: ["runCopilotHook", "COPILOT_HOOK"],
  gemini: ["runGeminiHook", "GEMINI_HOOK"],
  qwen: ["runQwenHook", "QWEN_HOOK"],
};

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const out = `${dist}hook`;
const postgres = `${dist}store/postgres/index.js`;
const ENTRY = "\0hook-entry";

// A host added to the table the hook command reads must get its bundle too.
const { HOOK_RUNNERS } = await import(`${dist}hosts/hook-kit/runners.js`);
const missing = Object.keys(HOOK_RUNNERS).filter((host) => !Object.hasOwn(HOSTS, host));
if (missing.length > 0) {
  throw new Error(`bundle-hooks: add ${missing.join(", ")} to HOSTS (the host's hook runner)`);
}
// The hook entry's own list of them (it runs no bundle of a host it does not list).
const { BUNDLED_HOOK_HOSTS } = await import(`${dist}hosts/hook-kit/bundled-hosts.js`);
if ([...BUNDLED_HOOK_HOSTS].sort().join() !== Object.keys(HOSTS).sort().join()) {
  throw new Error(
    "bundle-hooks: BUNDLED_HOOK_HOSTS (src/hosts/hook-kit/bundled-hosts.ts) and HOSTS differ",
  );
}

rmSync(out, { recursive: true, force: true });
for (const [host, [runner, spec]] of Object.entries(HOSTS)) {
  await build({
    input: ENTRY,
    platform: "node",
    logLevel: "warn",
    plugins: [
      {
        name: "hook-entry",
        resolveId(source, importer) {
          if (source === ENTRY) return ENTRY;
          const absolute = importer?.startsWith("/") ? resolve(dirname(importer), source) : source;
          if (absolute === postgres) {
            // Relative to dist/hook/, where the bundle lives.
            return { id: "../store/postgres/index.js", external: true };
          }
          // Packages and node: modules are not bundled.
          if (!source.startsWith(".") && !source.startsWith("/"))
            return { id: source, external: true };
          return null;
        },
        load(id) {
          if (id !== ENTRY) return null;
          return [
            `import { processHookIo, writeHookReply } from ${JSON.stringify(`${dist}hosts/hook-kit/process.js`)};`,
            `import { beginEvent } from ${JSON.stringify(`${dist}core/per-event.js`)};`,
            `import { ${runner}, ${spec} } from ${JSON.stringify(`${dist}hosts/${host}/hook.js`)};`,
            "/** The same contract as dist/hosts/hook-kit/entry.js, for this one host. */",
            "export async function runHookProcess(host, args, input) {",
            `  return host === ${JSON.stringify(host)} ? ${runner}(args, processHookIo(input)) : null;`,
            "}",
            "/** The resident server's: every event of a host runs on one set of these modules. */",
            "export async function runHookWith(host, args, io) {",
            "  beginEvent();",
            `  return host === ${JSON.stringify(host)} ? ${runner}(args, io) : null;`,
            "}",
            "/** Answers as the hook does when it fails on its own (it allows the stop). */",
            "export function writeHookFailure(reason) {",
            `  writeHookReply(processHookIo(""), ${spec}.failure(reason));`,
            "}",
            "/** The event the hook answered: which events the code cache has seen. */",
            `export { lastHookEvent } from ${JSON.stringify(`${dist}hosts/hook-kit/main.js`)};`,
          ].join("\n");
        },
      },
    ],
    output: {
      file: `${out}/${host}.cjs`,
      format: "cjs",
      codeSplitting: false,
      comments: false,
    },
  });
}

// The command hooks run (`dist/hook/main.cjs hook <host>`): CommonJS, so a hook process never
// starts Node's ES module loader. It holds only what a hook the resident server answers runs;
// the rest (running the event here, starting a server) is `local.cjs`, required when needed.
const LOCAL = `${dist}hosts/hook-kit/hook-local.js`;
/** How main.cjs names local.cjs until the build turns the import into a require. */
const LOCAL_ID = "./local.cjs";
/** Packages and Node's own modules stay requires; so does local.cjs from main.cjs. */
function externals(local) {
  return {
    name: "hook-externals",
    resolveId(source, importer) {
      if (!source.startsWith(".") && !source.startsWith("/")) return { id: source, external: true };
      const absolute = importer?.startsWith("/") ? resolve(dirname(importer), source) : source;
      if (local && absolute === LOCAL) return { id: LOCAL_ID, external: true };
      return null;
    },
  };
}
await build({
  input: ENTRY,
  platform: "node",
  logLevel: "warn",
  plugins: [
    {
      name: "hook-main",
      resolveId(source) {
        return source === ENTRY ? ENTRY : null;
      },
      load(id) {
        if (id !== ENTRY) return null;
        return [
          `import { main } from ${JSON.stringify(`${dist}hosts/hook-kit/hook-main.js`)};`,
          "main(__dirname);",
        ].join("\n");
      },
    },
    externals(true),
  ],
  output: { file: `${out}/main.cjs`, format: "cjs", codeSplitting: false, comments: false },
});
await build({
  input: LOCAL,
  platform: "node",
  logLevel: "warn",
  plugins: [externals(false)],
  output: { file: `${out}/local.cjs`, format: "cjs", codeSplitting: false, comments: false },
});

/**
 * Node modules a hook's stop never uses, loaded on first use instead of at start:
 * each costs a new process milliseconds to load.
 */
const LAZY = ["node:child_process", "node:crypto", "node:fs/promises", "node:timers/promises"];
/**
 * A bundle's `import()` of a Node module or of a file beside it (the PostgreSQL store): code
 * compiled by `vm` cannot run `import()`, so the loader serves these as `__import()`.
 */
const ESM_IMPORT = /(?<![\w$.])import\((["'])((?:node:|\.\.?\/)[^"'\\]+)\1\)/g;

const LAZY_HELPER = [
  "/** A Node module loaded on first use of one of its exports. */",
  "function __lazy(id) {",
  "  let loaded;",
  "  return new Proxy({}, { get: (_, key) => (loaded ??= require(id))[key] });",
  "}",
].join("\n");

/** `code` with each of `ids` required on first use; throws when one is required otherwise. */
function makeLazy(file, code, ids) {
  let out = code;
  for (const id of ids) {
    const line = new RegExp(`^let (\\w+) = require\\(${JSON.stringify(id)}\\);$`, "m");
    out = out.replace(line, (_, name) => `let ${name} = __lazy(${JSON.stringify(id)});`);
    if (out.includes(`require(${JSON.stringify(id)})`)) {
      throw new Error(`${file}: ${id} is required in a form the build does not make lazy`);
    }
  }
  return `${LAZY_HELPER}\n${out}`;
}

// The hook entry: its import of local.cjs becomes a require (an import() would start the ES
// module loader), and the Node modules only the CLI's fallback uses are loaded on first use.
{
  const file = `${out}/main.cjs`;
  let code = readFileSync(file, "utf8");
  const dynamic = /\bimport\((["'])\.\/local\.cjs\1\)/g;
  if (!dynamic.test(code)) throw new Error(`${file}: no import of ${LOCAL_ID} to make a require`);
  code = code.replace(
    dynamic,
    `Promise.resolve().then(() => require(${JSON.stringify(LOCAL_ID)}))`,
  );
  if (/(?<![\w$.])import\((["'])\.\//.test(code)) {
    throw new Error(`${file}: a relative import() is left, which would start the ES module loader`);
  }
  writeFileSync(file, makeLazy(file, code, ["node:path", "node:url"]));
}
// local.cjs: the code cache's loader and the server's start, with what only those load.
{
  const file = `${out}/local.cjs`;
  writeFileSync(file, makeLazy(file, readFileSync(file, "utf8"), ["node:child_process"]));
}

for (const host of Object.keys(HOSTS)) {
  const file = `${out}/${host}.cjs`;
  let code = readFileSync(file, "utf8");
  if (/^\/\/ todo-continuation bundle /.test(code)) throw new Error(`${file} is already finished`);
  code = code.replace(ESM_IMPORT, (_, quote, id) => `__import(${quote}${id}${quote})`);
  if (/(?<![\w$.])import\(/.test(code.replaceAll(/(["'`])(?:(?!\1)[^\\\n]|\\.)*\1/g, '""'))) {
    throw new Error(`${file}: an import() the loader cannot serve would fail under vm`);
  }
  const body = makeLazy(file, code, LAZY);
  const id = createHash("sha256").update(body).digest("hex").slice(0, 16);
  writeFileSync(file, `// todo-continuation bundle ${id}\n${body}`);
}
