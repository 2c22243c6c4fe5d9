import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { resolvePreset } from "../core/engine/presets.js";
import type { ContinuationMode, ContinuationState, Limits, PresetName } from "../core/types.js";
import { effectiveConfig, plainLimits } from "./effective.js";
import { findProjectConfig } from "./load.js";

/**
 * The preset and limits a scope is judged by outside its host (`why`, `show`,
 * `list`, `resume --add`, the dashboard): the ones its hook decided with. A
 * hook reads the project's config file from the folder it works in, and the
 * scope's state records that folder (`projectDir`), so a reader finds the
 * same file from there. Without a recorded folder, or without a file there,
 * the reader's own `--preset` (or the defaults) judges, as before.
 */
export interface ScopeLimits {
  preset: PresetName;
  limits: Limits;
  /** The file's `mode`, when it sets one (`advise`: decisions are recorded, never delivered). */
  mode?: ContinuationMode;
  /** The config file the values came from; null when the `--preset` option or the defaults judge. */
  file: string | null;
  /** The project folder the scope recorded; null when it recorded none. */
  projectDir: string | null;
  /**
   * Why the project's config file cannot be used (naming the file and what is
   * wrong with it); null when it can. The hook sends no nudge while this is
   * set (`config-invalid`), and `preset`/`limits` are then the reader's own,
   * not the project's: a reader must say so.
   */
  problem: string | null;
}

export interface ScopeLimitsOptions {
  env: Record<string, string | undefined>;
  /** The user's home (defaults to `env.HOME`): the walk to the config stops there, as a hook's does. */
  home?: string;
  /** A `--preset` given to the reader: wins over the file's preset (the file's limits still apply), as a hook's flag does. */
  presetFlag?: PresetName;
  /**
   * What judges a scope without a project file (the reader's own runtime);
   * default: `presetFlag`'s preset, else the defaults.
   */
  fallback?: { preset: PresetName; limits: Limits };
}

/** The values judged by the reader's own option or the defaults, with no file. */
function ownLimits(options: ScopeLimitsOptions, projectDir: string | null): ScopeLimits {
  const own = options.fallback ?? resolvePreset(options.presetFlag);
  const preset = "name" in own ? own.name : own.preset;
  return { preset, limits: own.limits, file: null, projectDir, problem: null };
}

/**
 * Resolves the limits for a scope that recorded `projectDir`, as its hook
 * did: the nearest config file walking up from that folder (to the repository
 * root or home), its preset unless `presetFlag` overrides it, its limits over
 * the preset's. Never throws: a file that cannot be read or validated comes
 * back as `problem`.
 */
export function resolveScopeLimits(
  projectDir: string | null | undefined,
  options: ScopeLimitsOptions,
): ScopeLimits {
  if (projectDir == null || projectDir === "") return ownLimits(options, null);
  const dir = resolve(projectDir);
  // A folder that is gone holds no file; walking up from it could find an unrelated one.
  if (!existsSync(dir)) return ownLimits(options, dir);
  try {
    const loaded = findProjectConfig(dir, options.home ?? options.env.HOME);
    if (loaded === null) return ownLimits(options, dir);
    const effective = effectiveConfig(
      loaded,
      options.presetFlag === undefined ? {} : { preset: options.presetFlag },
    );
    return {
      preset: effective.preset.value,
      limits: plainLimits(effective),
      ...(loaded.config.mode !== undefined ? { mode: loaded.config.mode } : {}),
      file: loaded.path,
      projectDir: dir,
      problem: null,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ...ownLimits(options, dir), problem: message };
  }
}

export interface ScopeLimitsResolverOptions extends ScopeLimitsOptions {
  /**
   * How long an answer stands (a long-lived dashboard sees an edited file
   * after this long); absent: for the life of the resolver (one command).
   */
  maxAgeMs?: number;
  /** Clock for `maxAgeMs`, injectable for tests. */
  now?: () => number;
}

/**
 * `resolveScopeLimits` with one answer per project folder for the life of
 * the resolver (one CLI command), or for `maxAgeMs` (a dashboard): ten
 * thousand scopes of one project read and validate its file once. Scopes
 * of one folder share the very same object while it stands.
 */
export class ScopeLimitsResolver {
  readonly #options: ScopeLimitsResolverOptions;
  readonly #byFolder = new Map<string, { limits: ScopeLimits; at: number }>();
  #own: ScopeLimits | null = null;

  constructor(options: ScopeLimitsResolverOptions) {
    this.#options = options;
  }

  /**
   * The limits for a scope, by the folder and the preset option its state recorded: the preset
   * its host was told to use wins over the project file's, as it did in the host, unless this
   * reader was given a `--preset` of its own.
   */
  forState(state: Pick<ContinuationState, "projectDir" | "presetOption">): ScopeLimits {
    return this.forProject(state.projectDir, state.presetOption);
  }

  forProject(projectDir: string | null | undefined, presetOption?: PresetName): ScopeLimits {
    const own = this.#options.presetFlag;
    const recorded = own === undefined ? presetOption : undefined;
    const options: ScopeLimitsResolverOptions =
      recorded === undefined
        ? this.#options
        : { ...this.#options, presetFlag: recorded, fallback: undefined };
    if (projectDir == null || projectDir === "") {
      if (recorded !== undefined) return ownLimits(options, null);
      this.#own ??= ownLimits(this.#options, null);
      return this.#own;
    }
    const { maxAgeMs, now = Date.now } = this.#options;
    const at = maxAgeMs === undefined ? 0 : now();
    const key = `${recorded ?? ""}\0${projectDir}`;
    const found = this.#byFolder.get(key);
    if (found !== undefined && (maxAgeMs === undefined || at - found.at < maxAgeMs)) {
      return found.limits;
    }
    const limits = resolveScopeLimits(projectDir, options);
    this.#byFolder.set(key, { limits, at });
    return limits;
  }
}

/**
 * Where a scope's limits came from, in words for a reader's heading:
 * `preset "default", limits from /p/todo-continuation.config.json`.
 */
export function limitsSource(limits: ScopeLimits): string {
  if (limits.problem !== null) {
    return `preset "${limits.preset}", NOT the project's limits: its config file cannot be used`;
  }
  return limits.file === null
    ? `preset "${limits.preset}"`
    : `preset "${limits.preset}", limits from ${limits.file}`;
}
