import type { Limits, StagnationMode, TokenMode } from "../types.js";

/**
 * "No limit", kept JSON-safe: Infinity would not survive a round trip
 * through a JSON file or a database column.
 */
export const UNLIMITED = Number.MAX_SAFE_INTEGER;

const STAGNATION_MODES: readonly StagnationMode[] = ["fingerprint", "strict"];
const TOKEN_MODES: readonly TokenMode[] = ["spend", "total"];

type Check = (value: unknown) => string | null;

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  return value === null ? "null" : typeof value === "object" ? "an object" : String(value);
}

function count(min: number): Check {
  return (value) => {
    if (value === Number.POSITIVE_INFINITY) {
      return `must be finite; use ${UNLIMITED} (Number.MAX_SAFE_INTEGER) for no limit`;
    }
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
      return `must be an integer >= ${min}`;
    }
    return null;
  };
}

function oneOf(options: readonly string[]): Check {
  return (value) =>
    typeof value === "string" && options.includes(value)
      ? null
      : `must be one of ${options.map((o) => JSON.stringify(o)).join(", ")}`;
}

const nullableCount: Check = (value) => {
  if (value === null) return null;
  const problem = count(0)(value);
  return problem === null ? null : `${problem}, or null for no ceiling`;
};

/** A non-negative amount of money (USD), or null for no limit. */
const nullableUsd: Check = (value) => {
  if (value === null) return null;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    return "must be a finite number of USD >= 0, or null for no cost limit";
  }
  return null;
};

/** Every limit and what it accepts. The key order is the order errors are reported in. */
const CHECKS: Record<keyof Limits, Check> = {
  maxAutoTurns: count(0),
  maxTokens: count(0),
  maxWallClockMs: count(0),
  stagnationLimit: count(0),
  stagnationMode: oneOf(STAGNATION_MODES),
  tokenMode: oneOf(TOKEN_MODES),
  maxIncomplete: nullableCount,
  maxCostUsd: nullableUsd,
  cooldownBaseMs: count(0),
  cooldownMaxMs: count(0),
  maxDeliveryFailures: count(1),
  maxErrorRetries: count(0),
  errorBackoffMs: count(0),
};

export const LIMIT_KEYS = Object.keys(CHECKS) as (keyof Limits)[];

/** What is wrong with one limit's value, or null when it is acceptable (e.g. for a config file). */
export function limitProblem(key: keyof Limits, value: unknown): string | null {
  return CHECKS[key](value);
}

/** How a value is quoted in an error message. */
export function describeValue(value: unknown): string {
  return describe(value);
}

/**
 * Applies overrides to a base set of limits and validates every field of the
 * result, so a bad preset is caught as surely as a bad override. Overrides
 * may be partial; a key whose value is `undefined` is left at the base value.
 * Any problem throws an error naming the field, the rule and the value given;
 * the base is never changed.
 */
export function resolveLimits(base: Limits, overrides?: unknown): Limits {
  if (overrides !== undefined && overrides !== null) {
    if (typeof overrides !== "object" || Array.isArray(overrides)) {
      throw new Error(`limits must be an object, got ${describe(overrides)}`);
    }
    for (const key of Object.keys(overrides)) {
      if (!Object.hasOwn(CHECKS, key)) {
        throw new Error(`limits.${key} is not a limit; valid limits: ${LIMIT_KEYS.join(", ")}`);
      }
    }
  }
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries((overrides ?? {}) as Record<string, unknown>)) {
    if (value !== undefined) merged[key] = value;
  }
  for (const key of LIMIT_KEYS) {
    const problem = CHECKS[key](merged[key]);
    if (problem !== null) {
      throw new Error(`limits.${key} ${problem}, got ${describe(merged[key])}`);
    }
  }
  if ((merged.cooldownMaxMs as number) < (merged.cooldownBaseMs as number)) {
    throw new Error(
      `limits.cooldownMaxMs must be >= limits.cooldownBaseMs (${merged.cooldownBaseMs}), got ${merged.cooldownMaxMs}`,
    );
  }
  const limits = {} as Record<keyof Limits, unknown>;
  for (const key of LIMIT_KEYS) limits[key] = merged[key];
  return limits as unknown as Limits;
}
