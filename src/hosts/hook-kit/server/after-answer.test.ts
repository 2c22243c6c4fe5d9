import { afterEach, describe, expect, it } from "vitest";
import { AFTER_ANSWER, afterAnswer, answerPending } from "../../../core/resident.js";
import { openAfterAnswer, runAfterAnswer } from "./after-answer.js";

afterEach(() => {
  delete (globalThis as Record<symbol, unknown>)[AFTER_ANSWER];
});

describe("work an event leaves for after its answer", () => {
  it("is refused outside an event: the caller does it now", () => {
    expect(answerPending()).toBe(false);
    expect(afterAnswer(() => {})).toBe(false);
    expect(runAfterAnswer()).toBe(0);
  });

  it("runs in order once the answer is sent, and the queue closes with it", () => {
    openAfterAnswer();
    expect(answerPending()).toBe(true);
    const ran: number[] = [];
    expect(afterAnswer(() => ran.push(1))).toBe(true);
    expect(afterAnswer(() => ran.push(2))).toBe(true);
    expect(ran).toEqual([]);
    expect(runAfterAnswer()).toBe(2);
    expect(ran).toEqual([1, 2]);
    expect(answerPending()).toBe(false);
    expect(afterAnswer(() => ran.push(3))).toBe(false);
    expect(runAfterAnswer()).toBe(0);
  });

  it("runs every task when one throws", () => {
    openAfterAnswer();
    const ran: string[] = [];
    afterAnswer(() => {
      throw new Error("gone");
    });
    afterAnswer(() => ran.push("second"));
    expect(runAfterAnswer()).toBe(2);
    expect(ran).toEqual(["second"]);
  });

  it("gives each event a queue of its own", () => {
    openAfterAnswer();
    const ran: string[] = [];
    afterAnswer(() => ran.push("first event"));
    openAfterAnswer();
    afterAnswer(() => ran.push("second event"));
    runAfterAnswer();
    expect(ran).toEqual(["second event"]);
  });
});
