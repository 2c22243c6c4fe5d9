import { fileURLToPath } from "node:url";
import type { runHookProcess } from "./entry.js";

/** Host names as they appear in bundle file names; anything else is never a file name. */
const HOST_NAME = /^[a-z][a-z0-9-]*$/;

function bundleOf(host: string | undefined): URL | null {
  return host !== undefined && HOST_NAME.test(host)
    ? new URL(`../../hook/${host}.js`, import.meta.url)
    : null;
}

/** Whether `error` says that `file` itself does not exist (not a module it imports). */
function isMissing(error: unknown, file: URL): boolean {
  if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") return false;
  // Node names the missing module by URL (`url`) and, in its message, by its decoded path.
  if ((error as { url?: unknown }).url === file.href) return true;
  return String((error as Error).message).includes(`'${fileURLToPath(file)}'`);
}

/**
 * The hook process for `host`: the one-file bundle the build writes to
 * `dist/hook/<host>.js` (a hook runs once per agent event, and loading fifty
 * separate modules was most of its start-up), or the unbundled entry when
 * there is none (running from the TypeScript sources, or a host without
 * hooks, which the unbundled entry turns down). A bundle that exists but
 * fails to load is an error, never silently replaced.
 */
export async function loadHookProcess(host: string | undefined): Promise<typeof runHookProcess> {
  const bundle = bundleOf(host);
  if (bundle !== null) {
    try {
      return ((await import(bundle.href)) as { runHookProcess: typeof runHookProcess })
        .runHookProcess;
    } catch (error) {
      if (!isMissing(error, bundle)) throw error;
    }
  }
  return (await import("./entry.js")).runHookProcess;
}
