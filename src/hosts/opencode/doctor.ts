import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveStoreRoot } from "../../store/root.js";
import type { DoctorCheck, DoctorContext, DoctorFinding } from "../doctor.js";
import { homeOf, isFile, notWritable } from "../hook-kit/doctor-files.js";
import { loadProblem } from "../hook-kit/doctor-load.js";
import { projectConfigFindings } from "../hook-kit/doctor-verify.js";
import { missingProgram, versionFinding } from "../hook-kit/doctor-version.js";
import { detectVersion } from "../hook-kit/version.js";
import { openCodeConfigDir, twiceInstalled } from "./install.js";
import { PLUGIN_HOSTS, type PluginHost, pluginMarker } from "./plugin-hosts.js";

/** The OpenCode release the plugin is tested with; older ones are reported. */
export const MIN_OPENCODE_VERSION = PLUGIN_HOSTS.opencode.minVersion;

interface PluginFile {
  target: "project" | "user";
  path: string;
  text: string;
}

async function pluginFiles(ctx: DoctorContext, host: PluginHost): Promise<PluginFile[]> {
  const found: PluginFile[] = [];
  const env = { ...ctx.env, HOME: homeOf(ctx.env, ctx.home) };
  for (const target of ["project", "user"] as const) {
    const dir = openCodeConfigDir(target, ctx.cwd, env, host);
    for (const folder of ["plugins", "plugin"]) {
      const path = join(dir, folder, "todo-continuation.js");
      const text = await readFile(path, "utf8").catch(() => null);
      if (text?.startsWith(pluginMarker(host))) found.push({ target, path, text });
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
 * OpenCode (or Kilo): its version against the tested one, and for each plugin
 * file `install <host>` wrote: the module it imports present and loadable,
 * and its store writable.
 */
export function pluginHostDoctor(host: PluginHost): DoctorCheck {
  return (ctx) => checkPluginHost(host, ctx);
}

export const openCodeDoctor: DoctorCheck = pluginHostDoctor(PLUGIN_HOSTS.opencode);
export const kiloDoctor: DoctorCheck = pluginHostDoctor(PLUGIN_HOSTS.kilo);

async function checkPluginHost(host: PluginHost, ctx: DoctorContext): Promise<DoctorFinding[]> {
  const HOST = host.name;
  const plugins = await pluginFiles(ctx, host);
  const version = await detectVersion(host.bin, ctx.env);
  if (version === null && plugins.length === 0) return [];
  const findings: DoctorFinding[] = [];
  findings.push(
    versionFinding(
      {
        host: HOST,
        name: host.title,
        min: host.minVersion,
        minReason: "the oldest tested",
        missing: missingProgram(
          "plugin is",
          host.bin,
          `put ${host.title} on PATH (${host.installHint})`,
        ),
        upgrade: `${host.bin} upgrade`,
      },
      version,
    ),
  );
  if (plugins.length === 0) {
    findings.push({
      host: HOST,
      check: "plugin",
      ok: true,
      message: `no todo-continuation plugin installed (todo-continuation install ${HOST} adds it)`,
      notInstalled: true,
    });
    return findings;
  }
  const targets = new Set(plugins.map((p) => p.target));
  if (targets.size === 2) {
    const folders = ["project", "user"].map((t) =>
      dirname(plugins.find((p) => p.target === t)?.path ?? ""),
    );
    // Handled (one copy acts), so not a problem: only a plugin loaded for nothing.
    findings.push({ host: HOST, check: "twice", ok: true, message: twiceInstalled(host, folders) });
  }
  for (const plugin of plugins) {
    const fix = `todo-continuation install ${HOST} --${plugin.target}`;
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
}
