import { resolve, sep } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Origin, Scope } from "../types.js";
import { decodeComponent } from "./component.js";
import {
  assertScope,
  describeScope,
  parseScopeKey,
  resolveScope,
  scopeKeyProblem,
} from "./scope.js";
import {
  lookAlikeOrigin,
  originIdentity,
  scopedOrigin,
  trickyString,
} from "./test-support/arbitraries.js";

const RESERVED_WINDOWS_NAMES = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

describe("resolveScope", () => {
  it.each<[Origin, Scope]>([
    [{ kind: "tui" }, { key: "tui", kind: "tui" }],
    [
      { kind: "channel", adapter: "slack", workspace: "T1", chat: "C9", thread: null },
      { key: "channel/sslack.s_t1.s_c9.n", kind: "channel" },
    ],
    [
      { kind: "channel", adapter: "telegram", workspace: null, chat: "-100", thread: "7" },
      { key: "channel/stelegram.n.s-100.s7", kind: "channel" },
    ],
    [
      { kind: "cron", jobId: "nightly" },
      { key: "cron/snightly", kind: "cron" },
    ],
    [
      { kind: "session", host: "claude-code", sessionId: "3f2a" },
      { key: "session/sclaude-code.s3f2a", kind: "session" },
    ],
  ])("maps %j to %j", (origin, scope) => {
    expect(resolveScope(origin)).toEqual(scope);
  });

  it("gives every tui attach the one shared scope", () => {
    expect(resolveScope({ kind: "tui" })).toEqual(resolveScope({ kind: "tui" }));
  });

  it.each<[string, Origin | null | undefined]>([
    ["a subagent", { kind: "subagent", parent: { kind: "tui" } }],
    ["system work", { kind: "system" }],
    ["null", null],
    ["undefined", undefined],
    ["an unknown kind", { kind: "webhook" } as unknown as Origin],
  ])("gives %s no scope", (_, origin) => {
    expect(resolveScope(origin)).toBeNull();
  });

  it("names the field when a known kind lacks an identifier", () => {
    expect(() => resolveScope({ kind: "cron" } as unknown as Origin)).toThrow(
      /origin\.jobId must be a string/,
    );
    expect(() =>
      resolveScope({ kind: "channel", adapter: "x", chat: "c", thread: null } as unknown as Origin),
    ).toThrow(/origin\.workspace must be a string or null/);
    expect(() =>
      resolveScope({ kind: "session", host: "pi", sessionId: 42 } as unknown as Origin),
    ).toThrow(/origin\.sessionId must be a string for a session origin, got number/);
  });

  it("keeps distinct origins apart", () => {
    fc.assert(
      fc.property(scopedOrigin, scopedOrigin, (a, b) => {
        fc.pre(originIdentity(a) !== originIdentity(b));
        expect(resolveScope(a)!.key).not.toBe(resolveScope(b)!.key);
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps look-alike origins apart", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(lookAlikeOrigin, { minLength: 10, maxLength: 60, selector: originIdentity }),
        (origins) => {
          const keys = new Set(origins.map((o) => resolveScope(o)!.key));
          expect(keys.size).toBe(origins.length);
        },
      ),
    );
  });

  it("decodes back to the very origin it came from", () => {
    fc.assert(
      fc.property(scopedOrigin, (origin) => {
        const { key } = resolveScope(origin)!;
        if (origin.kind === "tui") {
          expect(key).toBe("tui");
          return;
        }
        const [kind, rest] = key.split("/") as [string, string];
        const fields =
          origin.kind === "channel"
            ? [origin.adapter, origin.workspace, origin.chat, origin.thread]
            : origin.kind === "cron"
              ? [origin.jobId]
              : origin.kind === "session"
                ? [origin.host, origin.sessionId]
                : [];
        expect(kind).toBe(origin.kind);
        const decoded = rest.split(".").map((part) => decodeComponent(part));
        expect(decoded).toHaveLength(fields.length);
        decoded.forEach((component, i) => {
          const field = fields[i]!;
          if (field === null) expect(component).toEqual({ form: "null" });
          else if (component?.form !== "hashed") {
            expect(component).toEqual({ form: "string", value: field });
          }
        });
      }),
      { numRuns: 500 },
    );
  });

  it("tells null apart from every string in each nullable slot", () => {
    fc.assert(
      fc.property(trickyString, (value) => {
        const base = { kind: "channel", adapter: "a", chat: "c" } as const;
        const withNull = resolveScope({ ...base, workspace: null, thread: null })!.key;
        expect(resolveScope({ ...base, workspace: value, thread: null })!.key).not.toBe(withNull);
        expect(resolveScope({ ...base, workspace: null, thread: value })!.key).not.toBe(withNull);
      }),
    );
  });

  it("produces keys that stay inside the folder they are joined to", () => {
    const root = resolve("/srv/store/todo");
    fc.assert(
      fc.property(scopedOrigin, (origin) => {
        const { key } = resolveScope(origin)!;
        for (const suffix of [".json", ".log.jsonl", ".lock"]) {
          for (const base of [root, resolve(root, ".state")]) {
            const path = resolve(base, `${key}${suffix}`);
            expect(path.startsWith(base + sep)).toBe(true);
          }
        }
      }),
    );
  });

  it("produces only segments every OS accepts as file names", () => {
    fc.assert(
      fc.property(scopedOrigin, (origin) => {
        const segments = resolveScope(origin)!.key.split("/");
        expect(segments.length).toBeLessThanOrEqual(2);
        for (const segment of segments) {
          expect(segment).toMatch(/^[a-z0-9_%.-]+$/);
          expect(segment).not.toMatch(/^\.|[. ]$/);
          expect(segment.split(".")[0]).not.toMatch(RESERVED_WINDOWS_NAMES);
          // Leaves room for ".log.jsonl" plus a temporary suffix within 255 bytes.
          expect(segment.length).toBeLessThanOrEqual(210);
        }
      }),
    );
  });

  it("resolves to a key parseScopeKey gives back unchanged", () => {
    fc.assert(
      fc.property(scopedOrigin, (origin) => {
        const scope = resolveScope(origin)!;
        expect(parseScopeKey(scope.key)).toEqual(scope);
        expect(() => assertScope(scope)).not.toThrow();
      }),
    );
  });
});

describe("parseScopeKey", () => {
  it.each([
    "",
    "TUI",
    "tui/",
    "tui/x",
    "../sessions/x",
    "/etc/passwd",
    "cron",
    "cron/",
    "cron/..",
    "cron/n",
    "cron/sa.sb",
    "cron/sa/sb",
    "cron/sa.",
    "cron/../../x",
    "cron\\sa",
    "channel/sa.n.sb",
    "channel/n.n.sc.n",
    "channel/sa.n.n.n",
    "session/spi",
    "session/spi.n",
    "sessions/spi.sx",
    "cron/s_A",
  ])("refuses %j with a reason", (key) => {
    expect(parseScopeKey(key)).toBeNull();
    expect(scopeKeyProblem(key)).toMatch(/scope key/);
  });

  it("accepts only keys whose characters are file-name safe", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary-ascii", maxLength: 30 }), (tail) => {
        for (const key of [`cron/${tail}`, `channel/${tail}`, tail]) {
          if (parseScopeKey(key) !== null) expect(key).toMatch(/^[a-z]+(\/[a-z0-9_%.-]+)?$/);
        }
      }),
    );
  });
});

describe("assertScope", () => {
  it("refuses hand-built scopes with a clear error", () => {
    expect(() => assertScope({ key: "../sessions/x", kind: "session" })).toThrow(
      /invalid scope: scope key "\.\.\/sessions\/x" has unknown kind/,
    );
    expect(() => assertScope({ key: "tui", kind: "cron" })).toThrow(
      /kind "cron" does not match key "tui"/,
    );
    expect(() => assertScope(null)).toThrow(/expected an object/);
    expect(() => assertScope({ kind: "tui" })).toThrow(/scope key must be a string, got undefined/);
  });
});

describe("describeScope", () => {
  it.each<[Origin, string]>([
    [{ kind: "tui" }, "tui (shared)"],
    [
      { kind: "channel", adapter: "slack", workspace: "T1", chat: "C9", thread: "1700.1" },
      "channel slack: workspace T1, chat C9, thread 1700.1",
    ],
    [
      { kind: "channel", adapter: "telegram", workspace: null, chat: "", thread: null },
      'channel telegram: chat ""',
    ],
    [{ kind: "cron", jobId: "nightly report" }, 'cron job "nightly report"'],
    [{ kind: "session", host: "opencode", sessionId: "ses_9" }, "opencode session ses_9"],
  ])("labels %j as %j", (origin, text) => {
    expect(describeScope(resolveScope(origin)!)).toBe(text);
  });

  it("labels a hashed component by the start of its hash", () => {
    const scope = resolveScope({ kind: "cron", jobId: "j".repeat(100) })!;
    expect(describeScope(scope)).toMatch(/^cron job #[0-9a-f]{12}$/);
  });

  it("labels an invalid key without throwing", () => {
    expect(describeScope({ key: "../x", kind: "cron" })).toBe('invalid scope "../x"');
  });
});
