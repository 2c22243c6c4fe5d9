import { readFileSync, statSync } from "node:fs";
import { type CompiledBundle, compileBundle, hookBundlePath } from "../code-cache.js";

/** What the table needs of the file system and the compiler (the server passes Node's). */
export interface BundleFiles {
  /** The host's bundle file, or null when the package has none for it. */
  path(host: string): string | null;
  /** What identifies the file's current bytes (inode, size, time), or null when it is gone. */
  identity(file: string): string | null;
  compile(file: string): Pick<CompiledBundle, "instantiate">;
}

/** A host's bundle, compiled once, with the file it was read from. */
interface LoadedHost {
  bundle: Pick<CompiledBundle, "instantiate">;
  identity: string;
  /** The set of its modules every event of the host runs on; null until the next event makes one. */
  modules: Record<string, unknown> | null;
}

/**
 * The resident server's host bundles: each compiled once, its top level run once, and every
 * event of the host run on that one set of modules. A set made anew for each event (as earlier
 * servers did, between events) ran each event's code cold: the new set's classes are new to
 * V8's inline caches, 0.22 to 0.25 ms of a served event where a bare node starts in 30 ms (0.5 to
 * 1 where it starts in 50). What of a module's state belongs to one event is forgotten before
 * each (`core/per-event.ts`); a set whose event failed is dropped, and the next event runs on a
 * new one.
 */
export class HostBundles {
  readonly #hosts = new Map<string, LoadedHost>();
  readonly #files: BundleFiles;

  constructor(files: BundleFiles) {
    this.#files = files;
  }

  /**
   * The host's modules (made on its first event, and after a {@link discard}), or why the server
   * must not run it: `none`, the host has no bundle path; `changed`, the file is gone or changed
   * under the server (an upgrade: a new server serves the new package).
   */
  modulesFor(
    host: string,
  ): { modules: Record<string, unknown> } | { none: string } | { changed: string } {
    const file = this.#files.path(host);
    if (file === null) return { none: `no hook bundle for ${host}` };
    const identity = this.#files.identity(file);
    const known = this.#hosts.get(host);
    if (known !== undefined && known.identity === identity) {
      known.modules ??= known.bundle.instantiate();
      return { modules: known.modules };
    }
    if (known !== undefined || identity === null) return { changed: `${file} changed` };
    const bundle = this.#files.compile(file);
    const modules = bundle.instantiate();
    this.#hosts.set(host, { bundle, identity, modules });
    return { modules };
  }

  /**
   * Drops the host's modules: its event ended in an error its hook did not catch, which may have
   * left any module's state half made. The next event runs the bundle's top level anew.
   */
  discard(host: string): void {
    const known = this.#hosts.get(host);
    if (known !== undefined) known.modules = null;
  }
}

/** The bundles of the package folder `hookDir` (`dist/hook`), as the server reads them. */
export function bundleFilesOf(hookDir: string): BundleFiles {
  return {
    path: (host) => hookBundlePath(hookDir, host),
    identity(file) {
      const s = statSync(file, { throwIfNoEntry: false });
      return s === undefined ? null : `${s.ino}:${s.size}:${s.mtimeMs}`;
    },
    compile: (file) => compileBundle(file, readFileSync(file, "utf8")),
  };
}
