import { describe, expect, it } from "vitest";
import { colorEnabled, createStyle, stripAnsi } from "./style.js";

describe("colorEnabled", () => {
  it("follows whether stdout is a terminal", () => {
    expect(colorEnabled({}, true)).toBe(true);
    expect(colorEnabled({}, false)).toBe(false);
  });

  it("is off whenever NO_COLOR is set to something", () => {
    expect(colorEnabled({ NO_COLOR: "1" }, true)).toBe(false);
    expect(colorEnabled({ NO_COLOR: "1", FORCE_COLOR: "1" }, true)).toBe(false);
  });

  it("ignores an empty NO_COLOR, as the convention says", () => {
    expect(colorEnabled({ NO_COLOR: "" }, true)).toBe(true);
  });

  it("is on with FORCE_COLOR even when piped, and off on a dumb terminal", () => {
    expect(colorEnabled({ FORCE_COLOR: "1" }, false)).toBe(true);
    expect(colorEnabled({ FORCE_COLOR: "0" }, false)).toBe(false);
    expect(colorEnabled({ TERM: "dumb" }, true)).toBe(false);
  });
});

describe("createStyle", () => {
  it("wraps text in escape codes only when enabled", () => {
    expect(createStyle(false).red("x")).toBe("x");
    const red = createStyle(true).red("x");
    expect(red).not.toBe("x");
    expect(stripAnsi(red)).toBe("x");
  });

  it("leaves empty text empty", () => {
    expect(createStyle(true).bold("")).toBe("");
  });
});
