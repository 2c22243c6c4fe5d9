import { join } from "node:path";

/** Host names as they appear in bundle file names; anything else is never a file name. */
const HOST_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * The bundle of `host` in `folder` (`<host>.cjs`), or null for a name that is no host's. An
 * absolute folder without a trailing slash (the hook entry's own) is joined as text: a hook
 * process's first `path.join` costs it 0.3 ms.
 */
export function hookBundlePath(folder: string, host: string | undefined): string | null {
  if (host === undefined || !HOST_NAME.test(host)) return null;
  return folder.startsWith("/") && !folder.endsWith("/")
    ? `${folder}/${host}.cjs`
    : join(folder, `${host}.cjs`);
}
