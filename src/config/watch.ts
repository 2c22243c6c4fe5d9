import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { CONFIG_FILE } from "./load.js";
import { type ProjectSettings, type ProjectSettingsOptions, projectSettings } from "./project.js";
import { trustFilePath } from "./trust.js";

/**
 * The project settings of one folder for a long-running host (OpenCode, pi),
 * read again only when a file they come from may have changed: each call
 * stats the config candidates on the walk from `cwd` up to the repository
 * root (or home) and the user's trust record, and only when one of those
 * stats differs from the last read resolves the settings anew. So a
 * `todo-continuation trust`, or an edit of the config, takes effect at the
 * next idle without a restart, at the price of a few stats per idle.
 */
export class ProjectConfigWatcher {
  readonly cwd: string;
  readonly #options: ProjectSettingsOptions;
  #stamp: string | null = null;
  #settings: ProjectSettings | null = null;

  constructor(cwd: string, options: ProjectSettingsOptions) {
    this.cwd = resolve(cwd);
    this.#options = options;
  }

  /**
   * The settings now, and whether they differ from the previous call's
   * (always true at the first call). Never throws: what cannot be read is
   * the settings' `problem`, as `projectSettings` reports it.
   */
  async read(): Promise<{ settings: ProjectSettings; changed: boolean }> {
    const stamp = await this.#currentStamp();
    if (this.#settings !== null && stamp === this.#stamp) {
      return { settings: this.#settings, changed: false };
    }
    const settings = projectSettings(this.cwd, this.#options);
    const changed =
      this.#settings === null || JSON.stringify(settings) !== JSON.stringify(this.#settings);
    this.#stamp = stamp;
    this.#settings = settings;
    return { settings, changed };
  }

  /** The files the settings depend on, as `path=inode:size:mtime:ctime` (or `-` when absent). */
  async #currentStamp(): Promise<string> {
    const home = this.#options.home ?? this.#options.env.HOME;
    const stop = home === undefined ? null : resolve(home);
    const paths: string[] = [];
    let folder = this.cwd;
    for (;;) {
      const git = join(folder, ".git");
      paths.push(join(folder, CONFIG_FILE), join(folder, "package.json"), git);
      if (folder === stop) break;
      const parent = dirname(folder);
      if (parent === folder) break;
      // The loader's walk stops at a repository root; the stamp needs no more.
      if ((await describe(git)) !== "-") break;
      folder = parent;
    }
    paths.push(trustFilePath(this.#options.env, home ?? homedir()));
    const parts = await Promise.all(paths.map(async (p) => `${p}=${await describe(p)}`));
    return parts.join("\n");
  }
}

async function describe(path: string): Promise<string> {
  try {
    const s = await stat(path, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return "-";
  }
}
