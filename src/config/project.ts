import type { PartialPrice } from "../core/cost/price.js";
import type { ContinuationMode, Limits, PresetName, VerifySettings } from "../core/types.js";
import { effectiveConfig, plainVerify } from "./effective.js";
import { findProjectConfig, type LoadedConfig } from "./load.js";
import { type NotifySettings, notifyUntrustedNotice, resolveNotify } from "./notify.js";
import { type TrustStatus, trustStatus } from "./trust.js";

/**
 * What a host needs from a project's config at one event, resolved once:
 * the file's preset and limits (the host's own flags still win), and the
 * `verify` settings only when the file is trusted. Never throws: a hook must
 * answer whatever the file holds.
 */
export interface ProjectSettings {
  /** The config file (or package.json) the values came from; null when none. */
  file: string | null;
  /** The file's preset, when it names one and no flag overrides it. */
  preset?: PresetName;
  /** The file's limit overrides (validated together with the preset). */
  limits?: Partial<Limits>;
  /** The file's `mode` (`advise`: record decisions, never block or nudge). */
  mode?: ContinuationMode;
  /** The file's prices, over the package's table. */
  prices?: Record<string, PartialPrice>;
  /** The check to run; null without a `verify`, or while the file is not trusted. */
  verify: VerifySettings | null;
  /** Where to send notifications; null without a `notify`, or while the file is not trusted. */
  notify?: NotifySettings | null;
  /** A `notify` that waits for `todo-continuation trust`; null otherwise. */
  notifyNotice?: string | null;
  /** Null without a file. */
  trust: TrustStatus | null;
  /**
   * Why the file cannot be used (the validator's message naming file and
   * field); null when it can. A host must not nudge while this is set: the
   * limits the user wrote are unknown, and an unknown limit is no limit to
   * run against (see the `config-invalid` skip).
   */
  problem: string | null;
  /** A line for stderr, `why` and `doctor`: the problem, or a verify that waits for trust. */
  notice: string | null;
}

export interface ProjectSettingsOptions {
  env: Record<string, string | undefined>;
  /** The user's home (defaults to `env.HOME`); a file there is trusted, and the walk stops there. */
  home?: string;
  /** A `--preset` given to the hook command: wins over the file's. */
  presetFlag?: string;
}

/** The notice for a file whose `verify` waits for `todo-continuation trust`. */
export function untrustedNotice(status: TrustStatus, file: string): string | null {
  if (status.trusted) return null;
  return status.why === "changed"
    ? `verify not run: ${file} changed since it was trusted; run \`todo-continuation trust\` in this project`
    : `verify not run: ${file} is not trusted; run \`todo-continuation trust\` in this project`;
}

/**
 * Finds, validates and trusts the project config for `cwd`. A file that
 * cannot be read or validated comes back as `problem` with no values; a
 * `verify` in an untrusted file comes back as `verify: null` with a notice.
 */
export function projectSettings(cwd: string, options: ProjectSettingsOptions): ProjectSettings {
  return readProjectSettings(cwd, options).settings;
}

/**
 * `projectSettings` with the config file it read (null without one, or when
 * it cannot be used), for a caller that needs more of the file than the
 * settings say (`doctor`'s timeout check) without reading it again.
 */
export function readProjectSettings(
  cwd: string,
  options: ProjectSettingsOptions,
): { settings: ProjectSettings; loaded: LoadedConfig | null } {
  const home = options.home ?? options.env.HOME;
  let loaded: LoadedConfig | null;
  try {
    loaded = findProjectConfig(cwd, home);
    // Validates limits against the preset as a whole, naming the file.
    effectiveConfig(loaded, options.presetFlag === undefined ? {} : { preset: options.presetFlag });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const settings = {
      file: null,
      verify: null,
      trust: null,
      problem: message,
      notice: `project config not used: ${message}`,
    };
    return { settings, loaded: null };
  }
  return { settings: settingsOf(loaded, home, options), loaded };
}

/** The settings of a config that was found and validated: its trust decides verify and notify. */
function settingsOf(
  loaded: LoadedConfig | null,
  home: string | undefined,
  options: ProjectSettingsOptions,
): ProjectSettings {
  if (loaded === null)
    return { file: null, verify: null, trust: null, problem: null, notice: null };
  let trust: TrustStatus;
  try {
    trust = trustStatus(
      loaded,
      home === undefined ? { env: options.env } : { env: options.env, home },
    );
  } catch (error) {
    // An unreadable trust record trusts nothing; the file's other values still apply.
    const message = error instanceof Error ? error.message : String(error);
    trust = { trusted: false, why: "never" };
    return {
      ...fileValues(loaded, options.presetFlag),
      verify: null,
      ...(loaded.config.notify === undefined
        ? {}
        : { notify: null, notifyNotice: `notify not sent: ${message}` }),
      trust,
      problem: null,
      notice: loaded.config.verify === undefined ? null : `verify not run: ${message}`,
    };
  }
  const verifyConfigured = loaded.config.verify !== undefined;
  const verify = trust.trusted ? plainVerify(effectiveConfig(loaded)) : null;
  const notify = loaded.config.notify;
  return {
    ...fileValues(loaded, options.presetFlag),
    verify,
    // A notify can run a command on this machine: it obeys the same trust as verify.
    ...(notify === undefined
      ? {}
      : trust.trusted
        ? { notify: resolveNotify(notify), notifyNotice: null }
        : { notify: null, notifyNotice: notifyUntrustedNotice(trust.why, loaded.path) }),
    trust,
    problem: null,
    notice: verifyConfigured ? untrustedNotice(trust, loaded.path) : null,
  };
}

function fileValues(
  loaded: LoadedConfig,
  presetFlag: string | undefined,
): Pick<ProjectSettings, "file" | "preset" | "limits" | "mode" | "prices"> {
  const { preset, limits, mode, prices } = loaded.config;
  return {
    file: loaded.path,
    ...(preset !== undefined && presetFlag === undefined ? { preset } : {}),
    ...(limits !== undefined ? { limits } : {}),
    ...(mode !== undefined ? { mode } : {}),
    ...(prices !== undefined ? { prices } : {}),
  };
}
