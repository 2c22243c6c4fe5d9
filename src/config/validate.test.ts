import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LIMIT_KEYS } from "../core/engine/limits.js";
import { ConfigError, validateConfig } from "./validate.js";

const schema = JSON.parse(
  readFileSync(new URL("../../schema/config.schema.json", import.meta.url), "utf8"),
) as object;
const ajv = new Ajv2020({ allErrors: false, strict: false });
const schemaAccepts = ajv.compile(schema);

function validatorAccepts(value: unknown): boolean {
  try {
    validateConfig(value, "cfg.json");
    return true;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}

/** Values near every boundary the schema draws, and values of every wrong type. */
const anyValue = fc.oneof(
  fc.constantFrom(
    -1,
    0,
    1,
    999,
    1000,
    1.5,
    3_600_000,
    3_600_001,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    null,
    true,
    "",
    " ",
    "\t\n",
    "npm test",
    "finished",
    "every-stop",
    "strict",
    "fingerprint",
    "spend",
    "total",
    "default",
    "omo",
    "enforce",
    "advise",
    "nope",
    "x".repeat(4096),
    "x".repeat(4097),
    "😀".repeat(4096),
    [],
    {},
  ),
  fc.integer(),
  fc.string(),
);

const limitsArb = fc.dictionary(fc.constantFrom(...LIMIT_KEYS, "maxTurns"), anyValue, {
  maxKeys: 4,
});
const verifyArb = fc.oneof(
  fc.record(
    { command: anyValue, timeoutMs: anyValue, when: anyValue, extra: anyValue },
    { requiredKeys: [] },
  ),
  anyValue,
);
const priceArb = fc.oneof(
  fc.record(
    {
      input: anyValue,
      output: anyValue,
      cacheRead: anyValue,
      cacheWrite: anyValue,
      other: anyValue,
    },
    { requiredKeys: [] },
  ),
  fc.record({ input: fc.double({ min: 0, max: 100, noNaN: true }), output: fc.nat() }),
  anyValue,
);
const pricesArb = fc.oneof(
  fc.dictionary(
    fc.oneof(fc.constantFrom("", " ", "gpt-5", "x".repeat(201)), fc.string()),
    priceArb,
    {
      maxKeys: 3,
    },
  ),
  anyValue,
);
const notifyValue = fc.oneof(
  anyValue,
  fc.constantFrom(
    "http://127.0.0.1:8080/hook",
    "https://example.test/x?y=1",
    "http://",
    "ftp://example.test/",
    "http://host with space/",
    "https://h/a b",
    "done",
    "stopped",
    "needs-input",
    "out-of-budget",
    "verify-failed",
    99,
    100,
    60_000,
    60_001,
  ),
  fc.array(
    fc.oneof(fc.constantFrom("done", "stopped", "verify-failed", "x", "", " "), fc.string()),
    { maxLength: 4 },
  ),
);
const notifyArb = fc.oneof(
  fc.record(
    {
      command: notifyValue,
      webhook: notifyValue,
      events: notifyValue,
      timeoutMs: notifyValue,
      extra: notifyValue,
    },
    { requiredKeys: [] },
  ),
  anyValue,
);
const configArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        $schema: fc.oneof(
          fc.constant("./node_modules/todo-continuation/schema/config.schema.json"),
          anyValue,
        ),
        preset: anyValue,
        mode: anyValue,
        limits: fc.oneof(limitsArb, anyValue),
        prices: pricesArb,
        verify: verifyArb,
        notify: notifyArb,
        verfy: anyValue,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: anyValue },
);

describe("the JSON Schema and the validator agree", () => {
  it("on many generated documents", () => {
    fc.assert(
      fc.property(configArb, (doc) => {
        expect(validatorAccepts(doc)).toBe(schemaAccepts(doc));
      }),
      { numRuns: 20_000 },
    );
  });

  it("on documents that are valid by construction", () => {
    const valid = fc.record(
      {
        preset: fc.constantFrom("default", "typeclaw", "parley", "omo", "pi"),
        mode: fc.constantFrom("enforce", "advise"),
        prices: fc.dictionary(
          fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ""),
          fc.record(
            {
              input: fc.double({ min: 0, max: 1000, noNaN: true }),
              output: fc.double({ min: 0, max: 1000, noNaN: true }),
              cacheRead: fc.double({ min: 0, max: 1000, noNaN: true }),
              cacheWrite: fc.double({ min: 0, max: 1000, noNaN: true }),
            },
            { requiredKeys: ["input", "output"] },
          ),
          { maxKeys: 3 },
        ),
        limits: fc.record(
          {
            maxAutoTurns: fc.nat(),
            stagnationMode: fc.constantFrom("strict", "fingerprint"),
            maxIncomplete: fc.option(fc.nat()),
            maxCostUsd: fc.option(fc.double({ min: 0, max: 1e6, noNaN: true })),
            maxDeliveryFailures: fc.integer({ min: 1 }),
          },
          { requiredKeys: [] },
        ),
        verify: fc.record(
          {
            command: fc.string({ minLength: 1 }).filter((s) => s.trim() !== ""),
            timeoutMs: fc.integer({ min: 1000, max: 3_600_000 }),
            when: fc.constantFrom("finished", "every-stop"),
          },
          { requiredKeys: ["command"] },
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(valid, (doc) => {
        expect(schemaAccepts(doc)).toBe(true);
        expect(validatorAccepts(doc)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("validateConfig errors name the file and the field", () => {
  const cases: [unknown, RegExp][] = [
    [[], /^cfg\.json: \(document\) must be a JSON object, got an array$/],
    [
      { verfy: {} },
      /^cfg\.json: verfy is not a known field; known fields: \$schema, preset, mode, limits, prices, verify, notify$/,
    ],
    [
      { preset: "fast" },
      /^cfg\.json: preset must be one of default, typeclaw, parley, omo, pi, got "fast"$/,
    ],
    [
      { limits: { maxAutoTurns: -1 } },
      /^cfg\.json: limits\.maxAutoTurns must be an integer >= 0, got -1$/,
    ],
    [{ limits: { maxTurns: 3 } }, /^cfg\.json: limits\.maxTurns is not a known field/],
    [{ limits: [3] }, /^cfg\.json: limits must be an object, got an array$/],
    [
      { verify: "npm test" },
      /^cfg\.json: verify must be an object such as \{"command": "npm test"\}, got "npm test"$/,
    ],
    [{ verify: {} }, /^cfg\.json: verify\.command must be a shell command .* got nothing$/],
    [{ verify: { command: "  " } }, /^cfg\.json: verify\.command must be a shell command/],
    [
      { verify: { command: "x", timeoutMs: 500 } },
      /^cfg\.json: verify\.timeoutMs must be an integer from 1000 to 3600000 \(milliseconds\), got 500$/,
    ],
    [
      { verify: { command: "x", when: "always" } },
      /^cfg\.json: verify\.when must be one of "finished", "every-stop", got "always"$/,
    ],
    [
      { verify: { command: "x", timeout: 5 } },
      /^cfg\.json: verify\.timeout is not a known field; known fields of verify: command, timeoutMs, when$/,
    ],
    [{ mode: "warn" }, /^cfg\.json: mode must be one of "enforce", "advise", got "warn"$/],
    [
      { limits: { maxCostUsd: -1 } },
      /^cfg\.json: limits\.maxCostUsd must be a finite number of USD >= 0, or null for no cost limit, got -1$/,
    ],
    [{ prices: [] }, /^cfg\.json: prices must be an object such as/],
    [
      { prices: { "my-model": { input: 3 } } },
      /^cfg\.json: prices\."my-model"\.output must be a number of USD per million tokens >= 0, got nothing$/,
    ],
    [
      { prices: { "my-model": { input: 3, output: "15" } } },
      /^cfg\.json: prices\."my-model"\.output must be a number of USD per million tokens >= 0, got "15"$/,
    ],
    [
      { prices: { "my-model": { input: 3, output: 15, cached: 1 } } },
      /^cfg\.json: prices\."my-model"\.cached is not a known field; known fields of prices\."my-model": input, output, cacheRead, cacheWrite$/,
    ],
    [{ prices: { " ": { input: 1, output: 1 } } }, /^cfg\.json: prices\." " is not a model name/],
  ];
  for (const [doc, message] of cases) {
    it(JSON.stringify(doc), () => {
      expect(() => validateConfig(doc, "cfg.json")).toThrow(message);
    });
  }

  it("accepts a full example and returns it as written", () => {
    const doc = {
      $schema: "./node_modules/todo-continuation/schema/config.schema.json",
      preset: "omo",
      mode: "advise",
      limits: { maxAutoTurns: 10, maxIncomplete: null, maxCostUsd: 2.5 },
      prices: { "my-model": { input: 0.5, output: 2 } },
      verify: { command: "npm test", timeoutMs: 300_000, when: "every-stop" },
    };
    expect(validateConfig(doc, "cfg.json")).toEqual(doc);
  });
});

describe("notify", () => {
  const ok = (notify: unknown) => validateConfig({ notify }, "cfg.json").notify;
  const bad = (notify: unknown) => () => validateConfig({ notify }, "cfg.json");

  it("takes a shell command, an argument list, a webhook, events and a time limit", () => {
    expect(ok({ command: "notify-send done" })).toEqual({ command: "notify-send done" });
    expect(
      ok({
        command: ["node", "hook.js"],
        webhook: "http://127.0.0.1:9/x",
        events: ["done", "out-of-budget"],
        timeoutMs: 2_000,
      }),
    ).toEqual({
      command: ["node", "hook.js"],
      webhook: "http://127.0.0.1:9/x",
      events: ["done", "out-of-budget"],
      timeoutMs: 2_000,
    });
  });

  it("names the field that is wrong", () => {
    expect(bad({})).toThrow(/cfg\.json: notify needs a command or a webhook/);
    expect(bad({ webhook: "ftp://x/" })).toThrow(/notify\.webhook must be an http/);
    expect(bad({ webhook: "http://x/", events: ["finished"] })).toThrow(/notify\.events must be/);
    expect(bad({ webhook: "http://x/", events: ["done", "done"] })).toThrow(/notify\.events/);
    expect(bad({ webhook: "http://x/", timeoutMs: 50 })).toThrow(/notify\.timeoutMs .* got 50/);
    expect(bad({ command: [] })).toThrow(/notify\.command/);
    expect(bad({ command: "  " })).toThrow(/notify\.command/);
    expect(bad("http://x/")).toThrow(
      /^cfg\.json: notify must be an object such as \{"webhook": "http:\/\/127\.0\.0\.1:8080\/hook"\}, got "http:\/\/x\/"$/,
    );
    expect(bad({ webhook: "http://x/", retries: 3 })).toThrow(
      /notify\.retries is not a known field/,
    );
  });
});
