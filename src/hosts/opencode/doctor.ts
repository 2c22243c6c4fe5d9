import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveStoreRoot } from "../../store/root.js";
import type { DoctorCheck, DoctorContext, DoctorFinding } from "../doctor.js";
import { homeOf, isFile, notWritable } from "../hook-kit/doctor-files.js";
import { loadProblem } from "../hook-kit/doctor-load.js";
import { projectConfigFindings } from "../hook-kit/doctor-verify.js";
import { versionFinding } from "../hook-kit/doctor-version.js";
import { detectVersion } from "../hook-kit/version.js";

const HOST = "opencode";

/** The OpenCode release the plugin is tested with; older ones are reported. */
export const MIN_OPENCODE_VERSION = "1.18.33";

/** The first line of every plugin file `install opencode` writes. */
const MARKER = "// todo-continuation: OpenCode plugin";

interface PluginFile {
  target: "project" | "user";
  path: string;
  text: string;
}

function configDirs(ctx: DoctorContext): { target: "project" | "user"; dir: string }[] {
  const xdg = ctx.env.XDG_CONFIG_HOME;
  const user = join(
    xdg && isAbsolute(xdg) ? xdg : join(homeOf(ctx.env, ctx.home), ".config"),
    "opencode",
  );
  return [
    { target: "project", dir: join(ctx.cwd, ".opencode") },
    { target: "user", dir: user },
  ];
}

async function pluginFiles(ctx: DoctorContext): Promise<PluginFile[]> {
  const found: PluginFile[] = [];
  for (const { target, dir } of configDirs(ctx)) {
    for (const folder of ["plugins", "plugin"]) {
      const path = join(dir, folder, "todo-continuation.js");
      const text = await readFile(path, "utf8").catch(() => null);
      if (text?.startsWith(MARKER)) found.push({ target, path, text });
    }
  }
  return found;
}

/** The file a plugin file's import names: a file URL, or the package found from its folder. */
async function importedFile(plugin: PluginFile): Promise<string | null> {
  const match = /from ("(?:[^"\\]|\\.)*");/.exec(plugin.text);
  if (match === null) return null;
  const specifier = JSON.parse(match[1] as string) as string;
  if (specifier.startsWith("file:")) return fileURLToPath(specifier);
  for (let dir = dirname(plugin.path); ; dir = dirname(dir)) {
    const root = join(dir, "node_modules", "todo-continuation");
    if (await isFile(join(root, "package.json"))) {
      return join(root, "dist", "hosts", "opencode", "index.js");
    }
    if (dirname(dir) === dir) return null;
  }
}

function storeDirOf(plugin: PluginFile): string | undefined {
  const match = /^const options = (.*);$/m.exec(plugin.text);
  try {
    const options = match ? (JSON.parse(match[1] as string) as { storeDir?: unknown }) : {};
    return typeof options.storeDir === "string" ? options.storeDir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * OpenCode: its version against the tested one, and for each plugin file
 * `install opencode` wrote: the module it imports present and loadable, and
 * its store writable.
 */
export const openCodeDoctor: DoctorCheck = async (ctx) => {
  const plugins = await pluginFiles(ctx);
  const version = await detectVersion("opencode", ctx.env);
  if (version === null && plugins.length === 0) return [];
  const findings: DoctorFinding[] = [];
  findings.push(
    versionFinding(
      {
        host: HOST,
        name: "OpenCode",
        min: MIN_OPENCODE_VERSION,
        minReason: "the oldest tested",
        missing: {
          message:
            "the plugin is installed, but no `opencode` on PATH answers `opencode --version`",
          fix: "put OpenCode on PATH (npm install -g opencode-ai)",
        },
        upgrade: "opencode upgrade",
      },
      version,
    ),
  );
  if (plugins.length === 0) {
    findings.push({
      host: HOST,
      check: "plugin",
      ok: true,
      message: "no todo-continuation plugin installed (todo-continuation install opencode adds it)",
      notInstalled: true,
    });
    return findings;
  }
  for (const plugin of plugins) {
    const fix = `todo-continuation install opencode --${plugin.target}`;
    const file = await importedFile(plugin);
    if (file === null || !(await isFile(file))) {
      findings.push({
        host: HOST,
        check: "plugin",
        ok: false,
        message: `${plugin.path} imports ${file ?? "todo-continuation/opencode"}, which is not there`,
        fix:
          file === null
            ? `npm install --save-dev todo-continuation (or ${fix})`
            : `${fix} (or npm install)`,
      });
      continue;
    }
    const problem = await loadProblem(file, ctx.env, ctx.cwd);
    findings.push(
      problem === null
        ? { host: HOST, check: "loadable", ok: true, message: `${plugin.path} loads ${file}` }
        : {
            host: HOST,
            check: "loadable",
            ok: false,
            message: `${file} does not load: ${problem}`,
            fix,
          },
    );
    const root = resolveStoreRoot(storeDirOf(plugin), {
      env: ctx.env,
      home: homeOf(ctx.env, ctx.home),
      cwd: ctx.cwd,
    });
    const unwritable = await notWritable(root);
    findings.push(
      unwritable === null
        ? { host: HOST, check: "store", ok: true, message: `store ${root} is writable` }
        : {
            host: HOST,
            check: "store",
            ok: false,
            message: `the plugin cannot write its store: ${unwritable}`,
            fix: `make ${root} writable, or ${fix} --store-dir <a writable folder>`,
          },
    );
  }
  findings.push(...projectConfigFindings(HOST, ctx, "the plugin never nudges"));
  return findings;
};
