import { describe, expect, it } from "vitest";
import { moduleWrites } from "./module-writes.js";

/** A bundle of two modules, as the build writes one: region comments, then each module's code. */
const BUNDLE = `// todo-continuation bundle 0123456789abcdef
// dist/core/per-event.js
const resets = [];
function perEvent(reset) { resets.push(reset); }
// dist/store/a.js
let counter = 0;
let memo;
const seen = new Set();
const table = { size: 0 };
const NAMES = new Set(["x", "y"]);
let [first, second] = [1, 2];
let pair = 0;
let loose = 0;
let iterated;
const quiet = new Map();
function bump() { counter++; memo ??= 1; seen.add(1); table.size = 2; return NAMES.has("x"); }
function shadow() { let counter = 0; counter += 1; const seen = []; seen.push(1); return quiet.get(1); }
function pattern() { [pair] = [3]; ({ loose } = { loose: 4 }); for (iterated of [1]) {} }
perEvent(() => { seen.clear(); });
// dist/store/b.js
const live = new Map();
const live$1 = new Set();
function drop() { live.delete("k"); live$1.delete("k"); delete table.size; }
`;

describe("moduleWrites", () => {
  const found = moduleWrites(BUNDLE);
  const byName = new Map(found.map((w) => [w.bundled, w]));

  it("finds every way a module-level binding is written", () => {
    expect(byName.get("counter")?.writes).toEqual(["assigned"]);
    expect(byName.get("memo")?.writes).toEqual(["assigned"]);
    expect(byName.get("seen")?.writes).toEqual([".add()", ".clear()"]);
    expect(byName.get("table")?.writes).toEqual(["property written"]);
    expect(byName.get("pair")?.writes).toEqual(["assigned"]);
    expect(byName.get("loose")?.writes).toEqual(["assigned"]);
    expect(byName.get("iterated")?.writes).toEqual(["assigned"]);
    expect(byName.get("resets")?.writes).toEqual([".push()"]);
    expect(byName.get("live$1")).toMatchObject({ name: "live", writes: [".delete()"] });
  });

  it("leaves out what is only read, and a local that shares a module-level name", () => {
    for (const name of ["NAMES", "quiet", "first", "second", "bump", "shadow", "perEvent"]) {
      expect(byName.has(name), name).toBe(false);
    }
    // `shadow` writes its own `counter` and `seen`: the module's are written only in `bump`.
    expect(byName.get("counter")?.writes).toEqual(["assigned"]);
    expect(byName.get("seen")?.writes).toEqual([".add()", ".clear()"]);
  });

  it("tells which bindings a perEvent callback names", () => {
    const reset = found.filter((w) => w.resetPerEvent).map((w) => w.bundled);
    expect(reset).toEqual(["seen"]);
  });
});
