import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { CheckResult, CheckStatus, Scope, Todo } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { ContinuationRuntime } from "./runtime.js";

/**
 * The runtime with `verify`, over random sessions in which the check does
 * anything (passes, fails with varied output, times out, cannot start) on
 * trees that change or not, while the agent edits its list and the user
 * speaks now and then. The check is the runtime's injected runner, so every
 * call is seen.
 */

const scope = resolveScope({ kind: "session", host: "prop", sessionId: "verify" }) as Scope;
const MAX_AUTO_TURNS = 4;

type Step =
  | { kind: "user" }
  | { kind: "list"; done: boolean[] }
  | { kind: "stop"; status: CheckStatus; tree: number; output: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: "user" as const }) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.boolean(), { minLength: 1, maxLength: 3 })
      .map((done) => ({ kind: "list" as const, done })),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("stop" as const),
      status: fc.constantFrom<CheckStatus>("passed", "failed", "failed", "timed-out", "error"),
      tree: fc.integer({ min: 0, max: 2 }),
      output: fc.integer({ min: 0, max: 1 }),
    }),
  },
);

describe("runtime with verify: properties over random sessions", () => {
  /** Over all runs: checks made and verification nudges sent (the property is not vacuous). */
  const seen = { checks: 0, verifyNudges: 0, timedOut: 0 };

  it("no nudge from a check that timed out or could not start; budgets hold; the check runs only on a finished list; one nudge per unchanged failure", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        let now = 1_700_000_000_000;
        let next: Extract<Step, { kind: "stop" }> | null = null;
        let todos: Todo[] = [];
        let calls = 0;
        const runtime = new ContinuationRuntime({
          store: new MemoryStore(),
          now: () => now,
          limits: { maxAutoTurns: MAX_AUTO_TURNS },
          verify: {
            settings: { command: "check", timeoutMs: 60_000, when: "finished" },
            cwd: "/prop",
            cacheDir: "/prop",
            check: async () => {
              calls += 1;
              seen.checks += 1;
              const s = next as Extract<Step, { kind: "stop" }>;
              // Only a finished list is checked.
              expect(todos.length).toBeGreaterThan(0);
              expect(todos.every((t) => t.status === "completed")).toBe(true);
              const result: CheckResult = {
                command: "check",
                status: s.status,
                exitCode: s.status === "passed" ? 0 : s.status === "failed" ? 1 : null,
                signal: s.status === "timed-out" ? "SIGTERM" : null,
                startedAt: now,
                durationMs: 10,
                outputTail: `output ${s.output}`,
                tree: `tree ${s.tree}`,
              };
              return { result, ran: true, via: "ran" };
            },
          },
        });
        let nudgesSinceUser = 0;
        /** The failure the last verification nudge answered, and the list it saw. */
        let answered: string | null = null;
        let turn = 0;
        for (const s of steps) {
          now += 60_000;
          if (s.kind === "user") {
            await runtime.turnStarted(scope, { real: true });
            nudgesSinceUser = 0;
            answered = null;
            continue;
          }
          if (s.kind === "list") {
            todos = s.done.map((d, i) => ({
              content: `item ${i}`,
              status: d ? "completed" : "pending",
            }));
            await runtime.setTodos(scope, todos);
            continue;
          }
          next = s;
          turn += 1;
          const before = calls;
          let delivered = 0;
          const decision = await runtime.runIdle(scope, {
            trigger: "stop-hook",
            deliver: () => {
              delivered += 1;
            },
            outcome: { turnId: `t${turn}`, stopReason: "stop" },
          });
          const checked = calls > before;
          if (checked && s.status === "timed-out") seen.timedOut += 1;
          if (checked && (s.status === "timed-out" || s.status === "error")) {
            expect(decision).toMatchObject({
              action: "skip",
              reason: s.status === "timed-out" ? "verify-timed-out" : "verify-error",
            });
          }
          if (checked && s.status === "passed") expect(decision).toMatchObject({ action: "skip" });
          if (decision.action === "inject") {
            nudgesSinceUser += 1;
            expect(delivered).toBe(1);
            if (checked) {
              seen.verifyNudges += 1;
              const failure = `${s.tree}/${s.output}/${JSON.stringify(todos)}`;
              // The same failure on the same tree and list is never nudged twice in a row.
              expect(failure).not.toBe(answered);
              answered = failure;
            }
          }
          expect(nudgesSinceUser).toBeLessThanOrEqual(MAX_AUTO_TURNS);
          if (decision.action === "inject") {
            await runtime.turnEnded(scope, { stopReason: "stop", injected: true });
          }
        }
      }),
      { numRuns: 150 },
    );
    expect(seen.checks).toBeGreaterThan(20);
    expect(seen.verifyNudges).toBeGreaterThan(5);
    expect(seen.timedOut).toBeGreaterThan(5);
  });
});
