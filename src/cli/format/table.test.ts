import { describe, expect, it } from "vitest";
import { createStyle } from "../style.js";
import { formatTable } from "./table.js";

describe("formatTable", () => {
  it("aligns columns to the widest cell and right-aligns numbers", () => {
    const lines = formatTable(
      [{ header: "NAME" }, { header: "N", align: "right" }, { header: "NOTE" }],
      [
        ["a", "1", "x"],
        ["longer", "100", ""],
      ],
    );
    expect(lines).toEqual(["NAME      N  NOTE", "a         1  x", "longer  100"]);
  });

  it("measures cells by their visible text, not their colour codes", () => {
    const style = createStyle(true);
    const lines = formatTable([{ header: "A" }, { header: "B" }], [[style.red("xy"), "z"]]);
    expect(lines[1]?.replace(/\u001b\[[0-9;]*m/g, "")).toBe("xy  z");
    expect(lines[0]).toBe("A   B");
  });
});
