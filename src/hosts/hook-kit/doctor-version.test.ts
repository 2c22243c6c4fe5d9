import { describe, expect, it } from "vitest";
import { missingProgram, type VersionGate, versionFindings } from "./doctor-version.js";
import { versionOf } from "./version.js";

const gate: VersionGate = {
  host: "demo",
  name: "Demo CLI",
  min: "1.0.10",
  minReason: "the oldest tested",
  missing: missingProgram("hooks are", "demo", "npm install -g demo"),
  upgrade: "demo update",
  flaws: [
    {
      from: "1.0.40",
      fixedIn: "1.0.49",
      target: "project",
      liftedBy: "DEMO_REPO_HOOKS=true",
      message: "skips a repository's hooks",
      fix: "demo update",
    },
  ],
};
const project = { env: {}, targets: ["project"] };
const findingsOf = (version: string | null, ctx = project) =>
  versionFindings(gate, version === null ? null : versionOf(version), ctx);

describe("versionFindings", () => {
  it("names a flaw for every release from its first to the last before the fix", () => {
    for (const version of ["1.0.40", "1.0.44", "1.0.48", "1.0.48.9"]) {
      const found = findingsOf(version);
      expect(found.map((f) => f.ok)).toEqual([true, false]);
      expect(found[1]).toMatchObject({
        host: "demo",
        check: "version",
        message: `Demo CLI ${versionOf(version).join(".")} skips a repository's hooks`,
        fix: "demo update",
      });
    }
  });

  it("names none before the flaw's first release or from its fix on", () => {
    for (const version of ["1.0.10", "1.0.39", "1.0.49", "1.1.0", "2.0.0"]) {
      expect(findingsOf(version).map((f) => f.ok)).toEqual([true]);
    }
  });

  it("names none for an install of another target, or with the variable that lifts it", () => {
    expect(findingsOf("1.0.44", { env: {}, targets: ["user"] })).toHaveLength(1);
    expect(findingsOf("1.0.44", { env: {}, targets: [] })).toHaveLength(1);
    // The install for the other target runs where the project's does not.
    expect(findingsOf("1.0.44", { env: {}, targets: ["project", "user"] })).toHaveLength(1);
    expect(findingsOf("1.0.44", { env: {}, targets: ["project", "project"] })).toHaveLength(2);
    const lifted = { env: { DEMO_REPO_HOOKS: "true" }, targets: ["project"] };
    expect(findingsOf("1.0.44", lifted)).toHaveLength(1);
    // Only the value it names lifts it.
    const other = { env: { DEMO_REPO_HOOKS: "1" }, targets: ["project"] };
    expect(findingsOf("1.0.44", other).map((f) => f.ok)).toEqual([true, false]);
  });

  it("says only what is wrong first when the program is missing or too old", () => {
    expect(findingsOf(null)).toEqual([
      {
        host: "demo",
        check: "version",
        ok: false,
        message: "the hooks are installed, but no `demo` on PATH answers `demo --version`",
        fix: "npm install -g demo",
      },
    ]);
    const old = findingsOf("1.0.9");
    expect(old).toHaveLength(1);
    expect(old[0]?.message).toBe("Demo CLI 1.0.9 is older than 1.0.10, the oldest tested");
  });

  it("names every flaw a version meets", () => {
    const twice: VersionGate = {
      ...gate,
      flaws: [
        { from: "1.0.0", fixedIn: "2.0.0", message: "is slow", fix: "wait" },
        { from: "1.0.40", fixedIn: "1.0.41", message: "is broken", fix: "demo update" },
      ],
    };
    const found = versionFindings(twice, versionOf("1.0.40"), { env: {}, targets: [] });
    expect(found.map((f) => f.message)).toEqual([
      "Demo CLI 1.0.40 (needs 1.0.10 or newer)",
      "Demo CLI 1.0.40 is slow",
      "Demo CLI 1.0.40 is broken",
    ]);
  });
});
