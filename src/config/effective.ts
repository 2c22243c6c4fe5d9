import { LIMIT_KEYS, resolveLimits } from "../core/engine/limits.js";
import { resolvePreset } from "../core/engine/presets.js";
import type { ContinuationMode, Limits, PresetName, VerifySettings } from "../core/types.js";
import type { LoadedConfig } from "./load.js";
import {
  ConfigError,
  DEFAULT_MODE,
  DEFAULT_VERIFY_TIMEOUT_MS,
  DEFAULT_VERIFY_WHEN,
} from "./validate.js";

/** Where an effective value came from, lowest precedence first. */
export type ValueSource = "default" | "preset" | "file" | "flag";

export interface Sourced<T> {
  value: T;
  source: ValueSource;
}

/** What a hook or command was given on its own command line (wins over the file). */
export interface ConfigFlags {
  preset?: string | undefined;
}

export interface EffectiveConfig {
  /** The file the values marked `file` came from, or null. */
  file: string | null;
  preset: Sourced<PresetName>;
  /** `advise` records decisions and never blocks or nudges (a hook's `--mode` still wins). */
  mode: Sourced<ContinuationMode>;
  limits: { [K in keyof Limits]: Sourced<Limits[K]> };
  /** Null when no verify is configured. */
  verify: { [K in keyof VerifySettings]: Sourced<VerifySettings[K]> } | null;
}

/**
 * Merges the built-in defaults, the preset, the project file and the flags,
 * highest last, remembering where each value came from. Limits are validated
 * as a whole (`cooldownMaxMs >= cooldownBaseMs`), with errors naming the file.
 */
export function effectiveConfig(
  loaded: LoadedConfig | null,
  flags: ConfigFlags = {},
): EffectiveConfig {
  const file = loaded?.config ?? {};
  const preset: Sourced<PresetName> =
    flags.preset !== undefined
      ? { value: resolvePreset(flags.preset).name, source: "flag" }
      : file.preset !== undefined
        ? { value: file.preset, source: "file" }
        : { value: "default", source: "default" };
  const base = resolvePreset(preset.value);
  let limits: Limits;
  try {
    limits = resolveLimits(base.limits, file.limits);
  } catch (error) {
    if (loaded === null) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const field = /^(limits\.\w+) (.*)$/s.exec(message);
    throw field === null
      ? new ConfigError(loaded.path, "limits", message)
      : new ConfigError(loaded.path, field[1] as string, field[2] as string);
  }
  const defaults = resolvePreset("default").limits;
  const sourcedLimits = {} as Record<keyof Limits, Sourced<unknown>>;
  for (const key of LIMIT_KEYS) {
    const fromFile = file.limits !== undefined && file.limits[key] !== undefined;
    const source: ValueSource = fromFile
      ? "file"
      : preset.value !== "default" && base.limits[key] !== defaults[key]
        ? "preset"
        : "default";
    sourcedLimits[key] = { value: limits[key], source };
  }
  const v = file.verify;
  const verify =
    v === undefined
      ? null
      : {
          command: { value: v.command, source: "file" as const },
          timeoutMs:
            v.timeoutMs === undefined
              ? { value: DEFAULT_VERIFY_TIMEOUT_MS, source: "default" as const }
              : { value: v.timeoutMs, source: "file" as const },
          when:
            v.when === undefined
              ? { value: DEFAULT_VERIFY_WHEN, source: "default" as const }
              : { value: v.when, source: "file" as const },
        };
  return {
    file: loaded?.path ?? null,
    preset,
    mode:
      file.mode === undefined
        ? { value: DEFAULT_MODE, source: "default" }
        : { value: file.mode, source: "file" },
    limits: sourcedLimits as EffectiveConfig["limits"],
    verify,
  };
}

/** The plain values of an effective config, without their sources. */
export function plainLimits(config: EffectiveConfig): Limits {
  const out = {} as Record<keyof Limits, unknown>;
  for (const key of LIMIT_KEYS) out[key] = config.limits[key].value;
  return out as unknown as Limits;
}

export function plainVerify(config: EffectiveConfig): VerifySettings | null {
  if (config.verify === null) return null;
  return {
    command: config.verify.command.value,
    timeoutMs: config.verify.timeoutMs.value,
    when: config.verify.when.value,
  };
}
