// Bundles each host's hook process into one file, `dist/hook/<host>.js`, from
// the modules tsc built. A hook process starts once per agent event: reading one
// file instead of some fifty modules is most of what separates it from a bare
// `node` start. Packages and Node's own modules stay imports; the PostgreSQL
// store stays the unbundled module it is in `dist/store/postgres/`, loaded only
// when a database is named.
import { rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

/** Every host with a hook process (`HOOK_RUNNERS` in src/hosts/hook-kit/runners.ts) and its runner. */
const HOSTS = {
  "claude-code": "runClaudeCodeHook",
  codex: "runCodexHook",
  copilot: "runCopilotHook",
  gemini: "runGeminiHook",
  qwen: "runQwenHook",
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

rmSync(out, { recursive: true, force: true });
for (const [host, runner] of Object.entries(HOSTS)) {
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
            `import { processHookIo } from ${JSON.stringify(`${dist}hosts/hook-kit/process.js`)};`,
            `import { ${runner} } from ${JSON.stringify(`${dist}hosts/${host}/hook.js`)};`,
            "/** The same contract as dist/hosts/hook-kit/entry.js, for this one host. */",
            "export async function runHookProcess(host, args) {",
            `  return host === ${JSON.stringify(host)} ? ${runner}(args, processHookIo()) : null;`,
            "}",
          ].join("\n");
        },
      },
    ],
    output: {
      file: `${out}/${host}.js`,
      format: "esm",
      codeSplitting: false,
      comments: false,
    },
  });
}
