import { describe, expect, it } from "vitest";
import { beginEvent, perEvent } from "./per-event.js";

describe("perEvent", () => {
  it("runs every registered reset, in order, at each beginEvent", () => {
    const order: string[] = [];
    let memo: string | null = "event 1's";
    perEvent(() => {
      order.push("first");
      memo = null;
    });
    perEvent(() => order.push("second"));
    beginEvent();
    expect(order).toEqual(["first", "second"]);
    expect(memo).toBeNull();
    memo = "event 2's";
    beginEvent();
    expect(order).toEqual(["first", "second", "first", "second"]);
    expect(memo).toBeNull();
  });
});
