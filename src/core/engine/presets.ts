import type { Limits, Preset, PresetName } from "../types.js";
import { resolveLimits, UNLIMITED } from "./limits.js";

export { resolveLimits } from "./limits.js";

const MINUTE = 60_000;

/**
 * The project's own defaults. An agent that closes an item every turn can
 * finish a list of 20+ items (40 nudges leave twice that headroom); an agent
 * that stops making progress is let go after one wasted nudge (strict
 * progress, limit 1); and three ceilings hold whatever the agent does:
 * 40 nudges, 1,000,000 tokens of real spend (about 25k per nudged turn, cache
 * reads excluded) and two hours per episode. No countdown; idles within
 * 200 ms merge; the nudge carries the live list inline, so the system prompt
 * stays cacheable and the agent needs no extra call to see its list.
 */
const DEFAULT_LIMITS: Limits = {
  maxAutoTurns: 40,
  maxTokens: 1_000_000,
  maxWallClockMs: 120 * MINUTE,
  stagnationLimit: 1,
  stagnationMode: "strict",
  tokenMode: "spend",
  maxIncomplete: null,
  maxCostUsd: null,
  cooldownBaseMs: 5_000,
  cooldownMaxMs: 60_000,
  maxDeliveryFailures: 3,
  maxErrorRetries: 1,
  errorBackoffMs: 5_000,
};

/** Both peers continue after a transient provider error; one retry in a row, after 5 s. */
const ONE_RETRY = { maxErrorRetries: 1, errorBackoffMs: 5_000 };

/** No cooldown: the seed systems that lack one retry at the next idle. */
const NO_COOLDOWN = { cooldownBaseMs: 0, cooldownMaxMs: 0, maxDeliveryFailures: UNLIMITED };

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * One preset per seed system plus the project's own. Seed systems' numbers
 * are kept where they exist; where a seed has no such limit the value is
 * UNLIMITED (or 0 for a disabled stagnation check), so each preset behaves as
 * its system did. Frozen: `resolvePreset` hands out copies.
 */
export const PRESETS: Readonly<Record<PresetName, Preset>> = deepFreeze({
  default: {
    name: "default",
    description:
      "The project's defaults: long lists finish, an unproductive episode ends after one wasted nudge, hard ceilings on turns, spend and time.",
    limits: DEFAULT_LIMITS,
    nudgeStyle: "inline-list",
    dialect: "parley",
    debounceMs: 200,
    countdownMs: 0,
    maxWakeCycles: DEFAULT_LIMITS.maxAutoTurns,
  },
  typeclaw: {
    name: "typeclaw",
    description:
      "TypeClaw (seed 000): 3 nudges, 25,000 total tokens (cached input included), 30 minutes, 2 unchanged fingerprints.",
    limits: {
      maxAutoTurns: 3,
      maxTokens: 25_000,
      maxWallClockMs: 30 * MINUTE,
      stagnationLimit: 2,
      stagnationMode: "fingerprint",
      tokenMode: "total",
      maxIncomplete: null,
      maxCostUsd: null,
      ...NO_COOLDOWN,
      ...ONE_RETRY,
    },
    nudgeStyle: "system-block",
    dialect: "typeclaw",
    debounceMs: 0,
    countdownMs: 0,
    maxWakeCycles: 3,
  },
  parley: {
    name: "parley",
    description:
      "AgentParley (seed 002): 25 wake cycles per activation and no other budget; the live list rides inline in a user message.",
    limits: {
      maxAutoTurns: 25,
      maxTokens: UNLIMITED,
      maxWallClockMs: UNLIMITED,
      stagnationLimit: 0,
      stagnationMode: "fingerprint",
      tokenMode: "spend",
      maxIncomplete: null,
      maxCostUsd: null,
      ...NO_COOLDOWN,
      ...ONE_RETRY,
    },
    nudgeStyle: "inline-list",
    dialect: "parley",
    debounceMs: 0,
    countdownMs: 0,
    maxWakeCycles: 25,
  },
  omo: {
    name: "omo",
    description:
      "oh-my-openagent (seeds 001, 003): 200 ms debounce, 2 s countdown, 5 s cooldown doubling per failed delivery, 5 failures; stops after the first answer that leaves the list unchanged.",
    limits: {
      maxAutoTurns: UNLIMITED,
      maxTokens: UNLIMITED,
      maxWallClockMs: UNLIMITED,
      // The directive-response rule: an answer that leaves the list as it was ends the episode.
      stagnationLimit: 1,
      stagnationMode: "fingerprint",
      tokenMode: "spend",
      maxIncomplete: null,
      maxCostUsd: null,
      cooldownBaseMs: 5_000,
      cooldownMaxMs: 160_000,
      maxDeliveryFailures: 5,
      ...ONE_RETRY,
    },
    nudgeStyle: "status-directive",
    dialect: "typeclaw",
    debounceMs: 200,
    countdownMs: 2_000,
    maxWakeCycles: UNLIMITED,
  },
  pi: {
    name: "pi",
    description:
      "oh-my-pi (seed 004): up to 3 reminders before giving up, pi's phased todo_write dialect.",
    limits: {
      maxAutoTurns: 3,
      maxTokens: UNLIMITED,
      maxWallClockMs: UNLIMITED,
      stagnationLimit: 0,
      stagnationMode: "fingerprint",
      tokenMode: "spend",
      maxIncomplete: null,
      maxCostUsd: null,
      ...NO_COOLDOWN,
      ...ONE_RETRY,
    },
    nudgeStyle: "system-block",
    dialect: "pi",
    debounceMs: 0,
    countdownMs: 0,
    maxWakeCycles: 3,
  },
} satisfies Record<PresetName, Preset>);

export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

/**
 * A preset by name (no name: `default`), as a fresh copy the caller may
 * change. An unknown name throws an error listing the valid ones.
 */
export function resolvePreset(name?: string): Preset {
  const key = name ?? "default";
  if (typeof key !== "string" || !Object.hasOwn(PRESETS, key)) {
    throw new Error(
      `unknown preset ${typeof key === "string" ? JSON.stringify(key) : String(key)}; valid presets: ${PRESET_NAMES.join(", ")}`,
    );
  }
  const preset = PRESETS[key as PresetName];
  return { ...preset, limits: resolveLimits(preset.limits) };
}
