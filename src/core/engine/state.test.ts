import { describe, expect, it } from "vitest";
import { decide } from "./decide.js";
import { parseContinuationState, parseEpisode } from "./state.js";
import { episode, injectable } from "./test-support/fixtures.js";

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
