import { resolveLimits, resolvePreset } from "../../core/engine/presets.js";
import { NUDGE_STYLES } from "../../core/nudge/index.js";
import { quoteInput } from "../../core/quote.js";
import type { Limits, NudgeStyle, Preset, PresetName } from "../../core/types.js";

/**
 * Agents never nudged unless `skipAgents` says otherwise: OpenCode's planning
 * agent (read-only) and its hidden system agents, which write summaries and
 * titles rather than work through a list.
 */
export const DEFAULT_SKIP_AGENTS: readonly string[] = ["plan", "compaction", "summary", "title"];

/** How a nudge tells the model to close an item with OpenCode's own todo tool. */
export const OPENCODE_CLOSE_INSTRUCTION =
  'When an item is done and verified, call todowrite with the whole list and that item\'s status set to "completed" (or "cancelled" if it no longer applies).';

/** Options of the OpenCode plugin (plugin options in opencode.json, or the installed file). */
export interface OpenCodePluginOptions {
  /** Named bundle of limits and timings. Default "default". */
  preset?: PresetName;
  /** Overrides on top of the preset's limits. */
  limits?: Partial<Limits>;
  /** Which nudge text to render. Default: the preset's. */
  nudgeStyle?: NudgeStyle;
  /** The nudge's "how to close an item" sentence. Default: OpenCode's todowrite. */
  closeInstruction?: string;
  /** Delay before a nudge, shown as a toast and cancelled by user activity. Default: the preset's. */
  countdownMs?: number;
  /**
   * Wait this long after an idle before deciding, merging idles that come
   * meanwhile. Default 0: the plugin already merges OpenCode's duplicate idle
   * events (one decision per busy-to-idle cycle) and handles events in order,
   * so waiting would only delay the nudge.
   */
  debounceMs?: number;
  /** Agents never nudged. Default `DEFAULT_SKIP_AGENTS`; a list replaces it. */
  skipAgents?: string[];
  /** Store folder. Default: `$TODO_CONTINUATION_DIR`, else `$XDG_STATE_HOME/todo-continuation`. */
  storeDir?: string;
  /** Show the countdown as a toast in the TUI. Default true. */
  toast?: boolean;
  /** False loads the plugin but never nudges. Default true. */
  enabled?: boolean;
}

/** Options after validation, with every default filled in. */
export interface OpenCodeSettings {
  preset: Preset;
  limits: Limits;
  nudgeStyle: NudgeStyle;
  closeInstruction: string;
  countdownMs: number;
  debounceMs: number;
  skipAgents: readonly string[];
  storeDir: string | undefined;
  toast: boolean;
  enabled: boolean;
}

const KNOWN: readonly (keyof OpenCodePluginOptions)[] = [
  "preset",
  "limits",
  "nudgeStyle",
  "closeInstruction",
  "countdownMs",
  "debounceMs",
  "skipAgents",
  "storeDir",
  "toast",
  "enabled",
];

/** Longest countdown or debounce accepted: longer is a typo in seconds-vs-ms. */
const MAX_DELAY_MS = 10 * 60_000;

export class OpenCodeOptionsError extends Error {
  constructor(message: string) {
    super(`todo-continuation (opencode): ${message}`);
    this.name = "OpenCodeOptionsError";
  }
}

function describe(value: unknown): string {
  if (typeof value === "string") return quoteInput(value);
  if (Array.isArray(value)) return "an array";
  return value === null ? "null" : typeof value === "object" ? "an object" : String(value);
}

function delay(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== "number" ||
    !Number.isSafeInteger(value) ||
    value < 0 ||
    value > MAX_DELAY_MS
  ) {
    throw new OpenCodeOptionsError(
      `option "${name}" must be a whole number of milliseconds from 0 to ${MAX_DELAY_MS}, got ${describe(value)}`,
    );
  }
  return value;
}

function flag(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") {
    throw new OpenCodeOptionsError(
      `option "${name}" must be true or false, got ${describe(value)}`,
    );
  }
  return value;
}

function agentList(value: unknown): readonly string[] {
  if (value === undefined) return DEFAULT_SKIP_AGENTS;
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v.trim() !== "")) {
    throw new OpenCodeOptionsError(
      `option "skipAgents" must be a list of agent names, got ${describe(value)}`,
    );
  }
  return value.map((v: string) => v.trim());
}

function optionalText(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") {
    throw new OpenCodeOptionsError(
      `option "${name}" must be a non-empty string, got ${describe(value)}`,
    );
  }
  return value;
}

/**
 * Validates plugin options. Anything wrong throws an error naming the option,
 * what it accepts and what was given; OpenCode then reports the plugin as
 * failed to load, and nothing is ever nudged on a misread setting.
 */
export function parseOpenCodeOptions(raw: unknown): OpenCodeSettings {
  if (raw !== undefined && raw !== null && (typeof raw !== "object" || Array.isArray(raw))) {
    throw new OpenCodeOptionsError(`plugin options must be an object, got ${describe(raw)}`);
  }
  const options = (raw ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(options)) {
    if (!(KNOWN as readonly string[]).includes(key)) {
      throw new OpenCodeOptionsError(
        `unknown option ${quoteInput(key)}; known options: ${KNOWN.join(", ")}`,
      );
    }
  }
  let preset: Preset;
  let limits: Limits;
  try {
    preset = resolvePreset(options.preset as string | undefined);
    limits = resolveLimits(preset.limits, options.limits);
  } catch (error) {
    const where = String((error as Error).message).startsWith("limits")
      ? "option "
      : "option preset: ";
    throw new OpenCodeOptionsError(`${where}${(error as Error).message}`);
  }
  const style = options.nudgeStyle;
  if (style !== undefined && !(NUDGE_STYLES as readonly unknown[]).includes(style)) {
    throw new OpenCodeOptionsError(
      `option "nudgeStyle" must be one of ${NUDGE_STYLES.join(", ")}, got ${describe(style)}`,
    );
  }
  return {
    preset,
    limits,
    nudgeStyle: (style as NudgeStyle | undefined) ?? preset.nudgeStyle,
    closeInstruction:
      optionalText("closeInstruction", options.closeInstruction) ?? OPENCODE_CLOSE_INSTRUCTION,
    countdownMs: delay("countdownMs", options.countdownMs, preset.countdownMs),
    debounceMs: delay("debounceMs", options.debounceMs, 0),
    skipAgents: agentList(options.skipAgents),
    storeDir: optionalText("storeDir", options.storeDir),
    toast: flag("toast", options.toast, true),
    enabled: flag("enabled", options.enabled, true),
  };
}
