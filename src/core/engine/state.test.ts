import { describe, expect, it } from "vitest";
import { decide } from "./decide.js";
import { emptyState, parseContinuationState, parseEpisode } from "./state.js";
import { episode, injectable, NOW, outcome, stateWith } from "./test-support/fixtures.js";
import { onRealUserTurn, onTurnOutcome } from "./transitions.js";

describe("parseEpisode: answeredTurnId", () => {
  it("round-trips an episode the engine wrote", () => {
    const state = decide(injectable()).state;
    const reread = parseContinuationState(JSON.parse(JSON.stringify(state)));
    expect(reread).toEqual(state);
  });

  it("reads an absent answeredTurnId (older documents) as null", () => {
    const { answeredTurnId: _, ...older } = episode();
    expect(parseEpisode(older)?.answeredTurnId).toBeNull();
  });

  it("drops the episode when answeredTurnId has the wrong type", () => {
    expect(parseEpisode({ ...episode(), answeredTurnId: 7 })).toBeNull();
  });
});

describe("parseContinuationState: the fields for provider errors and user turns", () => {
  it("reads them, with older documents (absent fields) as not parked, no gate, no retries", () => {
    const old = parseContinuationState({
      version: 1,
      episode: { ...episode(), errorRetries: undefined },
    });
    expect(old.parked).toBeNull();
    expect(old.userTurnFingerprint).toBeNull();
    expect(old.episode?.errorRetries).toBe(0);
    const current = parseContinuationState({
      version: 1,
      episode: episode({ errorRetries: 1 }),
      parked: "retries-exhausted",
      userTurnFingerprint: "fp",
    });
    expect(current).toMatchObject({ parked: "retries-exhausted", userTurnFingerprint: "fp" });
    expect(current.episode?.errorRetries).toBe(1);
  });

  it("fails closed: an unknown park reason still parks, a bad retry count drops the episode", () => {
    expect(parseContinuationState({ version: 1, parked: "??" }).parked).toBe("provider-error");
    expect(parseEpisode({ ...episode(), errorRetries: -1 })).toBeNull();
  });
});

describe("parseContinuationState: state that cannot be trusted", () => {
  /** A stored exhausted episode: five of five nudges used, answering turn t2. */
  function exhausted(): Record<string, unknown> {
    return JSON.parse(
      JSON.stringify(
        stateWith({
          episode: episode({ autoTurns: 5, answeredTurnId: "t1" }),
          lastOutcome: outcome("t2"),
        }),
      ),
    );
  }

  it("round-trips an outcome the host retried itself", () => {
    const doc = { ...exhausted(), lastOutcome: { ...outcome("t9"), hostRetried: true } };
    const state = parseContinuationState(JSON.parse(JSON.stringify(doc)));
    expect(state.untrusted).toBe(false);
    expect(state.lastOutcome?.hostRetried).toBe(true);
  });

  it("reads a well-formed document as trusted", () => {
    expect(parseContinuationState(exhausted()).untrusted).toBe(false);
    expect(parseContinuationState(undefined)).toEqual(emptyState());
  });

  const corruptions: [string, (doc: Record<string, unknown>) => void][] = [
    ["autoTurns -1", (d) => Object.assign(d.episode as object, { autoTurns: -1 })],
    ['autoTurns "NaN"', (d) => Object.assign(d.episode as object, { autoTurns: "NaN" })],
    ["autoTurns null", (d) => Object.assign(d.episode as object, { autoTurns: null })],
    ["autoTurns 2.5", (d) => Object.assign(d.episode as object, { autoTurns: 2.5 })],
    [
      "autoTurns 1e999",
      (d) => Object.assign(d.episode as object, { autoTurns: Number.POSITIVE_INFINITY }),
    ],
    ["negative tokens", (d) => Object.assign(d.episode as object, { tokens: -10 })],
    ["a missing episode id", (d) => delete (d.episode as Record<string, unknown>).id],
    ["an episode that is a string", (d) => Object.assign(d, { episode: "ep" })],
    ["a missing stopped flag", (d) => delete d.stopped],
    ["a mistyped reminder", (d) => Object.assign(d, { reminders: [{ kind: "x" }] })],
    ["a malformed outcome", (d) => Object.assign(d, { lastOutcome: { turnId: 3 } })],
    ["a stored untrusted mark", (d) => Object.assign(d, { untrusted: true })],
    [
      "a mistyped hostRetried",
      (d) =>
        Object.assign(d, {
          lastOutcome: { ...outcome("t9", { stopReason: "transient_error" }), hostRetried: "yes" },
        }),
    ],
  ];
  for (const [label, corrupt] of corruptions) {
    it(`marks ${label} untrusted, and the engine skips with state-unreadable`, () => {
      const doc = exhausted();
      corrupt(doc);
      const state = parseContinuationState(doc);
      expect(state.untrusted).toBe(true);
      const decision = decide(injectable({ state }));
      expect(decision).toMatchObject({ action: "skip", reason: "state-unreadable" });
      expect(decision.state.untrusted).toBe(true);
    });
  }

  for (const raw of [null, 7, "text", [], true]) {
    it(`marks a document that is ${JSON.stringify(raw)} untrusted`, () => {
      expect(parseContinuationState(raw).untrusted).toBe(true);
    });
  }

  it("keeps a stop it can read from an otherwise untrusted state", () => {
    const doc = { ...exhausted(), stopped: true, episode: { autoTurns: -1 } };
    const state = parseContinuationState(doc);
    expect([state.untrusted, state.stopped]).toEqual([true, true]);
  });

  it("only a real user turn lifts it: outcomes recorded meanwhile keep it", () => {
    let state = parseContinuationState({ ...exhausted(), episode: { autoTurns: -1 } });
    state = onTurnOutcome(state, outcome("t3"), "spend");
    expect(decide(injectable({ state })).action).toBe("skip");
    state = onRealUserTurn(state, NOW);
    state = onTurnOutcome(state, outcome("t4"), "spend");
    expect(state.untrusted).toBe(false);
    expect(decide(injectable({ state })).action).toBe("inject");
  });
});
