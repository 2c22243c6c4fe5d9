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
