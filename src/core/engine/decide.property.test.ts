import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { summarize } from "../todo/summary.js";
import type { HostSignals, Limits, StopReason, TodoList, TodoStatus } from "../types.js";
import { decide } from "./decide.js";
import { UNLIMITED } from "./limits.js";
import { emptyState, parseContinuationState } from "./state.js";
import { listOf } from "./test-support/fixtures.js";
import { Sim } from "./test-support/sim.js";
import { setStopped } from "./transitions.js";

const RUNS = 10_000;

const limitsArb: fc.Arbitrary<Limits> = fc
  .record({
    maxAutoTurns: fc.integer({ min: 0, max: 6 }),
    maxTokens: fc.constantFrom(0, 500, 5_000, 5_000, UNLIMITED, UNLIMITED, UNLIMITED, UNLIMITED),
    maxWallClockMs: fc.constantFrom(0, 10_000, 100_000, 100_000, UNLIMITED, UNLIMITED, UNLIMITED),
    stagnationLimit: fc.integer({ min: 0, max: 3 }),
    stagnationMode: fc.constantFrom("fingerprint" as const, "strict" as const),
    tokenMode: fc.constantFrom("spend" as const, "total" as const),
    maxIncomplete: fc.oneof(
      { weight: 4, arbitrary: fc.constant(null) },
      fc.integer({ min: 0, max: 6 }),
    ),
    maxCostUsd: fc.oneof(
      { weight: 4, arbitrary: fc.constant(null) },
      fc.constantFrom(0, 0.01, 0.5, 10),
    ),
    cooldownBaseMs: fc.integer({ min: 0, max: 2_000 }),
    cooldownExtraMs: fc.integer({ min: 0, max: 8_000 }),
    maxDeliveryFailures: fc.integer({ min: 1, max: 4 }),
    maxErrorRetries: fc.integer({ min: 0, max: 2 }),
    errorBackoffMs: fc.constantFrom(0, 5_000),
  })
  .map(({ cooldownExtraMs, ...l }) => ({
    ...l,
    cooldownMaxMs: l.cooldownBaseMs + cooldownExtraMs,
  }));

const STOP_REASONS: StopReason[] = [
  "stop",
  "tool_use",
  "length",
  "error",
  "transient_error",
  "aborted",
  "context_overflow",
  "unknown",
];
const STATUSES: TodoStatus[] = ["pending", "in_progress", "completed", "cancelled", "blocked"];

type Event =
  | { kind: "user" }
  | { kind: "injected" }
  | {
      kind: "outcome";
      stopReason: StopReason;
      output: number;
      cacheRead: number;
      restartCaused: boolean;
    }
  | { kind: "edit"; op: "status" | "add" | "remove" | "reword"; index: number; status: TodoStatus }
  | { kind: "idle"; signals: HostSignals; deliver: "ok" | "fail" }
  | { kind: "restart"; withAbort: boolean }
  | { kind: "stop"; value: boolean }
  | { kind: "tick"; ms: number }
  /** A productive cycle: a clean turn that closes an item (or adds one), then an idle. */
  | { kind: "work"; ms: number };

const rare = fc.oneof({ weight: 15, arbitrary: fc.constant(false) }, fc.constant(true));

const eventArb: fc.Arbitrary<Event> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: "user" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "injected" as const }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("outcome" as const),
      stopReason: fc.oneof(
        { weight: 4, arbitrary: fc.constant<StopReason>("stop") },
        fc.constantFrom(...STOP_REASONS),
      ),
      output: fc.integer({ min: 0, max: 3_000 }),
      cacheRead: fc.integer({ min: 0, max: 100_000 }),
      restartCaused: rare,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("edit" as const),
      op: fc.constantFrom("status" as const, "add" as const, "remove" as const, "reword" as const),
      index: fc.nat(20),
      status: fc.constantFrom(...STATUSES),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("idle" as const),
      signals: fc.record({
        agentExcluded: rare,
        recovering: rare,
        backgroundWork: rare,
        awaitingUser: rare,
        hostGoalActive: rare,
      }),
      deliver: fc.oneof(
        { weight: 4, arbitrary: fc.constant("ok" as const) },
        fc.constant("fail" as const),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("restart" as const), withAbort: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("stop" as const),
      value: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, fc.constant(true)),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("tick" as const), ms: fc.nat(30_000) }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant("work" as const), ms: fc.nat(5_000) }) },
);

const eventsArb = fc.array(eventArb, { maxLength: 30, size: "max" });
const startStatuses = fc.array(fc.constantFrom(...STATUSES), { maxLength: 6, size: "max" });

function edit(list: TodoList, e: Extract<Event, { kind: "edit" }>): TodoList {
  const todos = [...list.todos];
  const i = todos.length === 0 ? 0 : e.index % todos.length;
  const target = todos[i];
  if (e.op === "add" || target === undefined) {
    todos.push({ id: String(list.nextId), content: `added ${list.nextId}`, status: "pending" });
    return { ...list, todos, nextId: list.nextId + 1 };
  }
  if (e.op === "remove") todos.splice(i, 1);
  if (e.op === "reword") todos[i] = { ...target, content: `${target.content}!` };
  if (e.op === "status") {
    const { blockedReason: _, ...rest } = target;
    todos[i] =
      e.status === "blocked"
        ? { ...rest, status: e.status, blockedReason: "waiting" }
        : { ...rest, status: e.status };
  }
  return { ...list, todos };
}

interface Watch {
  /** A user abort was recorded and no real user turn has followed. */
  abortPending: boolean;
  /** Outcome turn ids whose nudge was delivered. */
  delivered: Set<string>;
  maxPerEpisode: number;
  injectedAfterAbort: number;
  answeredTwice: number;
  /** Fingerprint of the list at the last real user turn (null before the first). */
  userFingerprint: string | null;
  /** Nudges (not retries) while the list was as the user left it. */
  nudgedUntouched: number;
  /** Retries since the last clean turn ending or real user turn, and the most seen. */
  retriesInARow: number;
  maxRetriesInARow: number;
  /** A provider error parked the scope and the user has not spoken since. */
  parked: boolean;
  injectedWhileParked: number;
}

const ADD = { kind: "edit", op: "add", index: 0, status: "pending" } as const;

function step(sim: Sim, watch: Watch, e: Extract<Event, { kind: "idle" }>): void {
  const answering = sim.state.lastOutcome?.turnId ?? "";
  const fingerprint = sim.summary().fingerprint;
  const decision = sim.idle(e.signals, e.deliver);
  if (
    decision.action === "skip" &&
    ["provider-error", "retries-exhausted"].includes(decision.reason)
  ) {
    watch.parked = true;
  }
  if (decision.action === "inject") {
    if (watch.parked) watch.injectedWhileParked++;
    if (decision.retry === true) {
      watch.retriesInARow++;
      watch.maxRetriesInARow = Math.max(watch.maxRetriesInARow, watch.retriesInARow);
    } else if (fingerprint === watch.userFingerprint) {
      watch.nudgedUntouched++;
    }
    if (watch.abortPending) watch.injectedAfterAbort++;
    if (watch.delivered.has(answering)) watch.answeredTwice++;
    if (e.deliver === "ok") watch.delivered.add(answering);
  }
  watch.maxPerEpisode = Math.max(watch.maxPerEpisode, sim.injectionsThisEpisode);
}

/** Runs the events, persisting the state through JSON after every step as a store would. */
function run(sim: Sim, events: Event[]): Watch {
  const watch: Watch = {
    abortPending: false,
    delivered: new Set(),
    maxPerEpisode: 0,
    injectedAfterAbort: 0,
    answeredTwice: 0,
    userFingerprint: null,
    nudgedUntouched: 0,
    retriesInARow: 0,
    maxRetriesInARow: 0,
    parked: false,
    injectedWhileParked: 0,
  };
  for (const e of events) {
    switch (e.kind) {
      case "user":
        sim.userTurn();
        watch.abortPending = false;
        watch.parked = false;
        // The user's turn ends the episode: its retries start afresh, as every budget does.
        watch.retriesInARow = 0;
        watch.userFingerprint = sim.summary().fingerprint;
        break;
      case "injected":
        sim.injectedTurn();
        break;
      case "outcome":
        sim.turnEnd(
          e.stopReason,
          { output: e.output, cacheRead: e.cacheRead, input: 10 },
          {
            restartCaused: e.restartCaused,
          },
        );
        if (e.stopReason === "aborted" && !e.restartCaused) watch.abortPending = true;
        if (["stop", "tool_use", "length"].includes(e.stopReason)) watch.retriesInARow = 0;
        break;
      case "edit":
        sim.list = edit(sim.list, e);
        break;
      case "idle":
        step(sim, watch, e);
        break;
      case "restart":
        sim.restart();
        if (e.withAbort) sim.turnEnd("aborted", {}, { restartCaused: true });
        break;
      case "stop":
        sim.state = setStopped(sim.state, e.value);
        break;
      case "tick":
        sim.tick(e.ms);
        break;
      case "work":
        sim.tick(e.ms).turnEnd("stop", { output: 50, input: 10 }, { injected: true });
        watch.retriesInARow = 0;
        sim.completeNext();
        if (sim.summary().actionable === 0) sim.list = edit(sim.list, ADD);
        step(sim, watch, { kind: "idle", signals: {}, deliver: "ok" });
        break;
    }
    sim.roundTrip();
  }
  return watch;
}

describe("decide: properties over random event sequences", () => {
  it("never injects more than maxAutoTurns per episode", () => {
    fc.assert(
      fc.property(limitsArb, startStatuses, eventsArb, (limits, statuses, events) => {
        const watch = run(new Sim(limits, listOf(...statuses)), events);
        expect(watch.maxPerEpisode).toBeLessThanOrEqual(limits.maxAutoTurns);
      }),
      { numRuns: RUNS },
    );
  });

  it("injects nothing after a user abort until a real user turn", () => {
    fc.assert(
      fc.property(limitsArb, startStatuses, eventsArb, (limits, statuses, events) => {
        const watch = run(new Sim(limits, listOf(...statuses)), events);
        expect(watch.injectedAfterAbort).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });

  it("after a real user turn, nudges only once the list moved (retries aside)", () => {
    fc.assert(
      fc.property(limitsArb, startStatuses, eventsArb, (limits, statuses, events) => {
        const watch = run(new Sim(limits, listOf(...statuses)), events);
        expect(watch.nudgedUntouched).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });

  it("retries at most maxErrorRetries in a row, and nothing once parked until the user speaks", () => {
    fc.assert(
      fc.property(limitsArb, startStatuses, eventsArb, (limits, statuses, events) => {
        const watch = run(new Sim(limits, listOf(...statuses)), events);
        expect(watch.maxRetriesInARow).toBeLessThanOrEqual(limits.maxErrorRetries);
        expect(watch.injectedWhileParked).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });

  it("never answers one turn outcome with two delivered nudges", () => {
    fc.assert(
      fc.property(limitsArb, startStatuses, eventsArb, (limits, statuses, events) => {
        const watch = run(new Sim(limits, listOf(...statuses)), events);
        expect(watch.answeredTwice).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });
});

// ---------------------------------------------------------------------------
// Malformed state
// ---------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const junkArb: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    null,
    true,
    false,
    0,
    -1,
    1,
    1.5,
    1e20,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    "",
    "x",
    "stop",
    "aborted",
    "t1",
    "d1",
    [],
    {},
  ),
  fc.integer(),
  fc.string({ maxLength: 4 }),
);

const mutationArb = fc.record({
  at: fc.nat(),
  op: fc.oneof(
    { weight: 1, arbitrary: fc.constant({ kind: "delete" as const }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant("set" as const), value: junkArb }) },
  ),
});

/** Every (container, key) pair in a JSON document, root first. */
function slots(doc: Json): [Record<string, Json> | Json[], string | number][] {
  const out: [Record<string, Json> | Json[], string | number][] = [];
  const walk = (node: Json) => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        out.push([node, i]);
        walk(child);
      });
    } else if (node !== null && typeof node === "object") {
      for (const key of Object.keys(node)) {
        out.push([node, key]);
        walk(node[key] as Json);
      }
    }
  };
  walk(doc);
  return out;
}

function mutate(doc: Json, mutations: { at: number; op: unknown }[]): Json {
  for (const m of mutations) {
    const all = slots(doc);
    if (all.length === 0) return doc;
    const [container, key] = all[m.at % all.length]!;
    const op = m.op as { kind: "delete" } | { kind: "set"; value: Json };
    if (op.kind === "delete") {
      if (Array.isArray(container)) container.splice(key as number, 1);
      else delete container[key as string];
    } else if (Array.isArray(container)) {
      container[key as number] = op.value;
    } else {
      container[key as string] = op.value;
    }
  }
  return doc;
}

/**
 * The most a state can give an agent that does everything right: every turn
 * ends cleanly, closes an item, and every nudge is delivered. Counts nudges
 * until the engine has said no for good (more steps than any budget allows).
 */
const GREEDY_ITEMS = 30;
/** The greedy agent's list after it closed k items, built once so summaries are reused. */
const GREEDY_LISTS: TodoList[] = Array.from({ length: GREEDY_ITEMS + 1 }, (_, k) =>
  listOf(
    ...Array.from(
      { length: GREEDY_ITEMS },
      (_, i): TodoStatus => (i < k ? "completed" : "pending"),
    ),
  ),
);

function greedyInjections(limits: Limits, state: ReturnType<typeof emptyState>): number {
  const sim = new Sim(limits, GREEDY_LISTS[0]!, { state, now: 5_000_000, idPrefix: "d" });
  let closed = 0;
  for (let step = 0; step < limits.maxAutoTurns + 3; step++) {
    sim.turnEnd("stop", { output: 100, input: 20 });
    if (sim.idle().action === "inject") sim.list = GREEDY_LISTS[++closed]!;
    sim.tick(1_000);
  }
  return sim.injections;
}

const FRESH = new Map<string, number>();

/** What a fresh state allows under these limits (it depends on nothing else, so it is kept). */
function freshInjections(limits: Limits): number {
  const key = JSON.stringify(limits);
  let count = FRESH.get(key);
  if (count === undefined) {
    count = greedyInjections(limits, emptyState());
    FRESH.set(key, count);
  }
  return count;
}

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const turnIdArb = fc.constantFrom("d0", "d1", "d2", "t1", "t2", "x");
const timeArb = fc.oneof(fc.nat(10_000_000), fc.constant(Number.MAX_SAFE_INTEGER));

/** Any state the parser accepts, however odd: times in the future, marks out of range. */
const validStateArb = fc.record({
  version: fc.constant(1 as const),
  episode: maybe(
    fc.record({
      id: fc.string({ minLength: 1, maxLength: 3 }),
      startedAt: timeArb,
      autoTurns: fc.nat(8),
      tokens: fc.oneof(fc.nat(10_000), fc.constant(Number.MAX_SAFE_INTEGER)),
      stagnation: fc.nat(4),
      lastFingerprint: maybe(
        fc.constantFrom("x", ...GREEDY_LISTS.slice(0, 3).map((l) => summarize(l).fingerprint)),
      ),
      minIncomplete: maybe(fc.nat(40)),
      maxCompleted: maybe(fc.nat(40)),
      lastCountedTurnId: maybe(turnIdArb),
      failures: fc.nat(5),
      lastInjectionAt: maybe(timeArb),
      lastFailureAt: maybe(timeArb),
      answeredTurnId: maybe(turnIdArb),
      errorRetries: fc.nat(3),
    }),
  ),
  lastOutcome: maybe(
    fc.record({
      turnId: turnIdArb,
      stopReason: fc.constantFrom(...STOP_REASONS),
      endedAt: timeArb,
      usage: fc.constant({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }),
      injected: fc.boolean(),
      restartCaused: fc.boolean(),
    }),
  ),
  restartKickArmed: fc.boolean(),
  userAbortBlocked: fc.boolean(),
  stopped: fc.boolean(),
  reminders: fc.constant([]),
  lastUserTurnAt: maybe(timeArb),
  userTurnFingerprint: maybe(fc.constantFrom("x", summarize(GREEDY_LISTS[0]!).fingerprint)),
  parked: maybe(fc.constantFrom("provider-error" as const, "retries-exhausted" as const)),
});

/** States a run can leave behind: a productive start, then anything. */
const ranStateArb = fc
  .tuple(limitsArb, startStatuses, fc.array(eventArb, { maxLength: 20 }))
  .map(([limits, statuses, events]) => {
    const origin = new Sim(limits, listOf(...statuses, "pending"), { now: 4_000_000 });
    run(origin, [
      { kind: "user" },
      { kind: "outcome", stopReason: "stop", output: 10, cacheRead: 0, restartCaused: false },
      { kind: "idle", signals: {}, deliver: "ok" },
      ...events,
    ]);
    return origin.state;
  });

describe("decide: malformed state", () => {
  it("never allows more nudges than a fresh state would", () => {
    fc.assert(
      fc.property(
        fc.oneof(validStateArb, ranStateArb),
        limitsArb,
        fc.array(mutationArb, { maxLength: 4 }),
        (state, limits, mutations) => {
          // The document may come from a run under other limits (the config changed since).
          const doc = mutate(JSON.parse(JSON.stringify(state)) as Json, mutations);
          const parsed = parseContinuationState(doc);
          expect(greedyInjections(limits, parsed)).toBeLessThanOrEqual(freshInjections(limits));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("never throws on any document, and never injects without a safe outcome", () => {
    fc.assert(
      fc.property(fc.jsonValue(), limitsArb, (raw, limits) => {
        const state = parseContinuationState(raw);
        const decision = decide({
          state,
          summary: new Sim(limits, listOf("pending", "pending")).summary(),
          signals: {},
          limits,
          now: 5_000_000,
        });
        if (state.lastOutcome === null) expect(decision.action).toBe("skip");
      }),
      { numRuns: RUNS },
    );
  });
});
