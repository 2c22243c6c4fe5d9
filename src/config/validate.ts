import { describeValue, LIMIT_KEYS, limitProblem } from "../core/engine/limits.js";
import { PRESET_NAMES } from "../core/engine/presets.js";
import { NOTIFY_EVENTS, type NotifyEvent } from "../core/notify/events.js";
import type {
  ContinuationMode,
  Limits,
  ModelPrice,
  PresetName,
  VerifyWhen,
} from "../core/types.js";

/** The longest check a config may ask for: one hour. Hosts may allow less (see their installers). */
export const MAX_VERIFY_TIMEOUT_MS = 3_600_000;
/** The shortest: one second. */
export const MIN_VERIFY_TIMEOUT_MS = 1_000;
/** A check that states no time limit gets two minutes. */
export const DEFAULT_VERIFY_TIMEOUT_MS = 120_000;
export const DEFAULT_VERIFY_WHEN: VerifyWhen = "finished";
export const VERIFY_WHEN: readonly VerifyWhen[] = ["finished", "every-stop"];
/** Longer commands are refused: a config is not a script. */
export const MAX_VERIFY_COMMAND_CHARS = 4_096;

export const MODES: readonly ContinuationMode[] = ["enforce", "advise"];
export const DEFAULT_MODE: ContinuationMode = "enforce";
/** Longer model names are refused (no host names a model like that). */
export const MAX_MODEL_NAME_CHARS = 200;

/** A model's prices as written in a config file: cache prices default to the input price. */
export interface PriceInput {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** A project's configuration as written in its file (every field optional). */
export interface ProjectConfig {
  $schema?: string;
  preset?: PresetName;
  /** `advise`: decisions are recorded, nothing is blocked or sent. */
  mode?: ContinuationMode;
  limits?: Partial<Limits>;
  /** USD per million tokens by model, over the package's own table. */
  prices?: Record<string, PriceInput>;
  verify?: { command: string; timeoutMs?: number; when?: VerifyWhen };
  notify?: NotifyConfig;
}

/** `notify` as written: where to send which events (see docs/notify.md). */
export interface NotifyConfig {
  /** A shell command (string) or a program and its arguments (array); gets the payload on stdin. */
  command?: string | string[];
  /** An http(s) URL the payload is POSTed to. */
  webhook?: string;
  events?: NotifyEvent[];
  timeoutMs?: number;
}

/** A delivery that states no time limit gets five seconds. */
export const DEFAULT_NOTIFY_TIMEOUT_MS = 5_000;
export const MIN_NOTIFY_TIMEOUT_MS = 100;
export const MAX_NOTIFY_TIMEOUT_MS = 60_000;
const MAX_WEBHOOK_CHARS = 2_048;
const MAX_NOTIFY_ARGS = 64;
/** The same pattern as the schema's: a scheme, a host, then anything without spaces. */
const WEBHOOK_PATTERN = /^https?:\/\/[^\s/?#]+([/?#]\S*)?$/u;

/** A config file that does not validate: the message names the file and the field. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly field: string,
    problem: string,
  ) {
    super(`${file}: ${field} ${problem}`);
    this.name = "ConfigError";
  }
}

const TOP_KEYS = ["$schema", "preset", "mode", "limits", "prices", "verify", "notify"] as const;
const NOTIFY_KEYS = ["command", "webhook", "events", "timeoutMs"] as const;
/** Shown when `notify` is not an object. */
const NOTIFY_EXAMPLE = '{"webhook": "http://127.0.0.1:8080/hook"}';
const PRICE_KEYS = [
  "input",
  "output",
  "cacheRead",
  "cacheWrite",
] as const satisfies readonly (keyof ModelPrice)[];
const VERIFY_KEYS = ["command", "timeoutMs", "when"] as const;

/** Length as JSON Schema counts it (code points), not UTF-16 units. */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unknownKey(file: string, where: string, keys: readonly string[], value: object): void {
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) {
      throw new ConfigError(
        file,
        where === "" ? key : `${where}.${key}`,
        `is not a known field; known fields${where === "" ? "" : ` of ${where}`}: ${keys.join(", ")}`,
      );
    }
  }
}

/**
 * A section of the file (`verify`, `notify`, `limits`): an object of known
 * fields, or an error naming the section, with an example when one helps.
 */
function section(
  file: string,
  where: string,
  keys: readonly string[],
  raw: unknown,
  example?: string,
): Record<string, unknown> {
  if (!isRecord(raw)) {
    const such = example === undefined ? "" : ` such as ${example}`;
    throw new ConfigError(file, where, `must be an object${such}, got ${describeValue(raw)}`);
  }
  unknownKey(file, where, keys, raw);
  return raw;
}

/**
 * Checks a parsed config document field by field, exactly as
 * `schema/config.schema.json` describes it (a test holds the two together),
 * and returns it typed. Throws a `ConfigError` naming the file and the first
 * field that is wrong. Hand-written rather than a schema library so a hook
 * process stays small and fast to start.
 */
export function validateConfig(raw: unknown, file: string): ProjectConfig {
  if (!isRecord(raw)) {
    throw new ConfigError(file, "(document)", `must be a JSON object, got ${describeValue(raw)}`);
  }
  unknownKey(file, "", TOP_KEYS, raw);
  const config: ProjectConfig = {};
  if (raw.$schema !== undefined) {
    if (typeof raw.$schema !== "string") {
      throw new ConfigError(file, "$schema", `must be a string, got ${describeValue(raw.$schema)}`);
    }
    config.$schema = raw.$schema;
  }
  if (raw.preset !== undefined) {
    if (typeof raw.preset !== "string" || !(PRESET_NAMES as string[]).includes(raw.preset)) {
      throw new ConfigError(
        file,
        "preset",
        `must be one of ${PRESET_NAMES.join(", ")}, got ${describeValue(raw.preset)}`,
      );
    }
    config.preset = raw.preset as PresetName;
  }
  if (raw.mode !== undefined) {
    if (typeof raw.mode !== "string" || !(MODES as readonly string[]).includes(raw.mode)) {
      throw new ConfigError(
        file,
        "mode",
        `must be one of ${MODES.map((m) => JSON.stringify(m)).join(", ")}, got ${describeValue(raw.mode)}`,
      );
    }
    config.mode = raw.mode as ContinuationMode;
  }
  if (raw.limits !== undefined) {
    const written = section(file, "limits", LIMIT_KEYS, raw.limits);
    const limits: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(written)) {
      const problem = limitProblem(key as keyof Limits, value);
      if (problem !== null) {
        throw new ConfigError(file, `limits.${key}`, `${problem}, got ${describeValue(value)}`);
      }
      limits[key] = value;
    }
    config.limits = limits as Partial<Limits>;
  }
  if (raw.prices !== undefined) config.prices = validatePrices(raw.prices, file);
  if (raw.verify !== undefined) config.verify = validateVerify(raw.verify, file);
  if (raw.notify !== undefined) config.notify = validateNotify(raw.notify, file);
  return config;
}

function validatePrices(raw: unknown, file: string): Record<string, PriceInput> {
  if (!isRecord(raw)) {
    throw new ConfigError(
      file,
      "prices",
      `must be an object such as {"my-model": {"input": 3, "output": 15}}, got ${describeValue(raw)}`,
    );
  }
  const prices: Record<string, PriceInput> = {};
  for (const [model, entry] of Object.entries(raw)) {
    const where = `prices.${JSON.stringify(model)}`;
    if (model.trim() === "" || codePoints(model) > MAX_MODEL_NAME_CHARS) {
      throw new ConfigError(
        file,
        where,
        `is not a model name: 1 to ${MAX_MODEL_NAME_CHARS} characters, not blank`,
      );
    }
    if (!isRecord(entry)) {
      throw new ConfigError(
        file,
        where,
        `must be an object of USD per million tokens such as {"input": 3, "output": 15}, got ${describeValue(entry)}`,
      );
    }
    unknownKey(file, where, PRICE_KEYS, entry);
    const price: Record<string, number> = {};
    for (const key of PRICE_KEYS) {
      const value = entry[key];
      const required = key === "input" || key === "output";
      if (value === undefined && !required) continue;
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
        throw new ConfigError(
          file,
          `${where}.${key}`,
          `must be a number of USD per million tokens >= 0, got ${value === undefined ? "nothing" : describeValue(value)}`,
        );
      }
      price[key] = value;
    }
    prices[model] = price as unknown as PriceInput;
  }
  return prices;
}

/** A time limit in milliseconds: an integer from `min` to `max`, or an error naming the field. */
function millis(file: string, field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(
      file,
      field,
      `must be an integer from ${min} to ${max} (milliseconds), got ${describeValue(value)}`,
    );
  }
  return value;
}

function validateNotify(raw: unknown, file: string): NotifyConfig {
  const fields = section(file, "notify", NOTIFY_KEYS, raw, NOTIFY_EXAMPLE);
  const { command, webhook, events, timeoutMs } = fields;
  if (command === undefined && webhook === undefined) {
    throw new ConfigError(file, "notify", "needs a command or a webhook (or both)");
  }
  const notify: NotifyConfig = {};
  if (command !== undefined) notify.command = notifyCommand(command, file);
  if (webhook !== undefined) {
    if (
      typeof webhook !== "string" ||
      codePoints(webhook) > MAX_WEBHOOK_CHARS ||
      !WEBHOOK_PATTERN.test(webhook)
    ) {
      throw new ConfigError(
        file,
        "notify.webhook",
        `must be an http:// or https:// URL of at most ${MAX_WEBHOOK_CHARS} characters, got ${describeValue(webhook)}`,
      );
    }
    notify.webhook = webhook;
  }
  if (events !== undefined) {
    const known = NOTIFY_EVENTS as readonly unknown[];
    if (
      !Array.isArray(events) ||
      events.length === 0 ||
      !events.every((e) => known.includes(e)) ||
      new Set(events).size !== events.length
    ) {
      throw new ConfigError(
        file,
        "notify.events",
        `must be a non-empty list of distinct events among ${NOTIFY_EVENTS.map((e) => JSON.stringify(e)).join(", ")}, got ${describeValue(events)}`,
      );
    }
    notify.events = [...events] as NotifyEvent[];
  }
  if (timeoutMs !== undefined) {
    notify.timeoutMs = millis(
      file,
      "notify.timeoutMs",
      timeoutMs,
      MIN_NOTIFY_TIMEOUT_MS,
      MAX_NOTIFY_TIMEOUT_MS,
    );
  }
  return notify;
}

function notifyCommand(raw: unknown, file: string): string | string[] {
  const text = (value: unknown, blankOk: boolean): value is string =>
    typeof value === "string" &&
    value.length > 0 &&
    (blankOk || /\S/u.test(value)) &&
    codePoints(value) <= MAX_VERIFY_COMMAND_CHARS;
  if (text(raw, false)) return raw;
  if (
    Array.isArray(raw) &&
    raw.length >= 1 &&
    raw.length <= MAX_NOTIFY_ARGS &&
    raw.every((arg) => text(arg, true))
  ) {
    return [...(raw as string[])];
  }
  throw new ConfigError(
    file,
    "notify.command",
    `must be a shell command (1 to ${MAX_VERIFY_COMMAND_CHARS} characters, not blank) or a list of 1 to ${MAX_NOTIFY_ARGS} arguments, got ${describeValue(raw)}`,
  );
}

function validateVerify(raw: unknown, file: string): NonNullable<ProjectConfig["verify"]> {
  const fields = section(file, "verify", VERIFY_KEYS, raw, '{"command": "npm test"}');
  const { command, timeoutMs, when } = fields;
  if (
    typeof command !== "string" ||
    command.trim() === "" ||
    codePoints(command) > MAX_VERIFY_COMMAND_CHARS
  ) {
    throw new ConfigError(
      file,
      "verify.command",
      `must be a shell command of 1 to ${MAX_VERIFY_COMMAND_CHARS} characters, not blank, got ${command === undefined ? "nothing" : describeValue(command)}`,
    );
  }
  const verify: NonNullable<ProjectConfig["verify"]> = { command };
  if (timeoutMs !== undefined) {
    verify.timeoutMs = millis(
      file,
      "verify.timeoutMs",
      timeoutMs,
      MIN_VERIFY_TIMEOUT_MS,
      MAX_VERIFY_TIMEOUT_MS,
    );
  }
  if (when !== undefined) {
    if (typeof when !== "string" || !(VERIFY_WHEN as readonly string[]).includes(when)) {
      throw new ConfigError(
        file,
        "verify.when",
        `must be one of ${VERIFY_WHEN.map((w) => JSON.stringify(w)).join(", ")}, got ${describeValue(when)}`,
      );
    }
    verify.when = when as VerifyWhen;
  }
  return verify;
}
