import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyState, MAX_PROJECT_DIR_CHARS, parseContinuationState } from "./state.js";

const stored = (projectDir: unknown) => ({ ...emptyState(), projectDir });

describe("parseContinuationState: projectDir", () => {
  it("reads a stored folder back", () => {
    expect(parseContinuationState(stored("/home/u/app")).projectDir).toBe("/home/u/app");
  });

  it("reads an absent one (older documents) as absent", () => {
    expect("projectDir" in parseContinuationState(emptyState())).toBe(false);
  });

  it("drops an empty, over-long or control-character value without distrusting the state", () => {
    for (const bad of ["", "/a".repeat(MAX_PROJECT_DIR_CHARS), "/a\u001b[2J", "/a\nb"]) {
      const state = parseContinuationState(stored(bad));
      expect(state.projectDir).toBeUndefined();
      expect(state.untrusted).toBe(false);
    }
  });

  it("never throws on junk and never yields anything but a string", () => {
    fc.assert(
      fc.property(fc.anything(), (junk) => {
        const state = parseContinuationState(stored(junk));
        expect(state.projectDir === undefined || typeof state.projectDir === "string").toBe(true);
        if (typeof junk !== "string") expect(state.projectDir).toBeUndefined();
        expect(state.untrusted).toBe(false);
      }),
    );
  });
});

describe("parseContinuationState: presetOption", () => {
  it("reads a preset's name back, drops anything else without distrusting the state", () => {
    const read = (presetOption: unknown) =>
      parseContinuationState({ ...emptyState(), presetOption });
    expect(read("typeclaw").presetOption).toBe("typeclaw");
    expect("presetOption" in parseContinuationState(emptyState())).toBe(false);
    fc.assert(
      fc.property(fc.anything(), (junk) => {
        const state = read(junk);
        const names = ["default", "typeclaw", "parley", "omo", "pi"];
        expect(state.presetOption).toBe(
          typeof junk === "string" && names.includes(junk) ? junk : undefined,
        );
        expect(state.untrusted).toBe(false);
      }),
    );
    for (const inherited of ["constructor", "__proto__", "toString"]) {
      expect(read(inherited).presetOption).toBeUndefined();
    }
  });
});
