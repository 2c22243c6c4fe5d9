import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { QWEN_DEFAULT_BLOCK_CAP, qwenBlockCap, qwenProtocol } from "./protocol.js";

describe("Qwen Code's Stop-block cap", () => {
  it("keeps our nudges one below the cap Qwen runs with", () => {
    expect(qwenBlockCap({})).toBe(QWEN_DEFAULT_BLOCK_CAP);
    expect(qwenProtocol({}).maxNudges).toBe(7);
    expect(qwenProtocol({ QWEN_CODE_STOP_HOOK_BLOCK_CAP: "3" }).maxNudges).toBe(2);
    expect(qwenProtocol({ QWEN_CODE_STOP_HOOK_BLOCK_CAP: "1" }).maxNudges).toBe(0);
  });

  it("falls back to the default for anything but a positive whole number", () => {
    for (const raw of ["", "0", "-2", "2.5", "eight", " 9x"]) {
      expect(qwenBlockCap({ QWEN_CODE_STOP_HOOK_BLOCK_CAP: raw })).toBe(QWEN_DEFAULT_BLOCK_CAP);
    }
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const cap = qwenBlockCap({ QWEN_CODE_STOP_HOOK_BLOCK_CAP: raw });
        expect(Number.isSafeInteger(cap) && cap >= 1).toBe(true);
      }),
    );
  });
});
