import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo } from "./test-support/repo.js";
import { treeSnapshot } from "./tree.js";
import { verifyProject } from "./verify-project.js";

let repo: string;
let scratch: string;

beforeAll(() => {
  repo = makeRepo(2_000);
  scratch = mkdtempSync(join(tmpdir(), "tc-verify-scratch-"));
});
afterAll(() => {
  rmSync(repo, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** A check that counts its runs in a file outside the tree, and fails while `broken` exists. */
function countingCheck(counter: string) {
  return {
    command: `echo run >> ${counter}; test ! -e broken || { echo "broken is here"; exit 2; }`,
    timeoutMs: 10_000,
    when: "finished" as const,
  };
}
const runs = (counter: string) => {
  try {
    return readFileSync(counter, "utf8")
      .split("\n")
      .filter((l) => l !== "").length;
  } catch {
    return 0;
  }
};

describe("verifyProject on a real git repository of 2,000 files", () => {
  it("an unchanged tree is checked once; a change is always checked", async () => {
    const cacheDir = mkdtempSync(join(scratch, "cache-"));
    const counter = join(scratch, "count-a");
    const settings = countingCheck(counter);
    const opts = { settings, cwd: repo, cacheDir };
    const first = await verifyProject(opts);
    expect(first).toMatchObject({ ran: true, via: "ran" });
    expect(first.result.status).toBe("passed");
    const second = await verifyProject(opts);
    expect(second).toMatchObject({ ran: false, via: "witness" });
    expect(second.result.cached).toBe(true);
    expect(runs(counter)).toBe(1);

    writeFileSync(join(repo, "broken"), "x");
    const failing = await verifyProject(opts);
    expect(failing).toMatchObject({ ran: true });
    expect(failing.result).toMatchObject({
      status: "failed",
      exitCode: 2,
      outputTail: "broken is here",
    });
    expect((await verifyProject(opts)).ran).toBe(false);

    appendFileSync(join(repo, "d3", "f3.txt"), "edit\n");
    expect((await verifyProject(opts)).ran).toBe(true);
    rmSync(join(repo, "broken"));
    execFileSync("git", ["checkout", "-q", "--", "d3/f3.txt"], { cwd: repo });
    expect((await verifyProject(opts)).result.status).toBe("passed");
    expect(runs(counter)).toBe(4);
  });

  it("a touched file (same content) is not checked again: git says nothing changed", async () => {
    const cacheDir = mkdtempSync(join(scratch, "cache-"));
    const counter = join(scratch, "count-b");
    const opts = { settings: countingCheck(counter), cwd: repo, cacheDir };
    await verifyProject(opts);
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(repo, "d5", "f5.txt"), later, later);
    const touched = await verifyProject(opts);
    expect(touched).toMatchObject({ ran: false, via: "fingerprint" });
    expect((await verifyProject(opts)).via).toBe("witness");
    expect(runs(counter)).toBe(1);
  });

  it("a commit changes the fingerprint (HEAD is part of it)", () => {
    const before = treeSnapshot(repo).fingerprint;
    execFileSync(
      "git",
      ["-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "e"],
      { cwd: repo },
    );
    expect(treeSnapshot(repo).fingerprint).not.toBe(before);
  });

  it("ignored files do not count; new untracked files do", () => {
    const before = treeSnapshot(repo).fingerprint;
    mkdirSync(join(repo, "ignored"), { recursive: true });
    writeFileSync(join(repo, "ignored", "out.log"), "x");
    expect(treeSnapshot(repo).fingerprint).toBe(before);
    writeFileSync(join(repo, "new.txt"), "x");
    expect(treeSnapshot(repo).fingerprint).not.toBe(before);
    rmSync(join(repo, "new.txt"));
  });

  it("two sessions finishing at once share one run", async () => {
    const cacheDir = mkdtempSync(join(scratch, "cache-"));
    const counter = join(scratch, "count-c");
    const settings = { ...countingCheck(counter), command: `sleep 1; echo run >> ${counter}` };
    const [a, b] = await Promise.all([
      verifyProject({ settings, cwd: repo, cacheDir }),
      verifyProject({ settings, cwd: repo, cacheDir }),
    ]);
    expect(runs(counter)).toBe(1);
    expect([a.via, b.via].sort()).toEqual(["ran", "shared"]);
    expect(a.result.tree).toBe(b.result.tree);
  });
});

describe("outside git: a bounded walk", () => {
  it("runs once per tree state", async () => {
    const plain = mkdtempSync(join(scratch, "plain-"));
    writeFileSync(join(plain, "a.txt"), "a");
    const cacheDir = mkdtempSync(join(scratch, "cache-"));
    const counter = join(scratch, "count-d");
    const opts = { settings: countingCheck(counter), cwd: plain, cacheDir };
    expect(treeSnapshot(plain).kind).toBe("walk");
    await verifyProject(opts);
    expect((await verifyProject(opts)).via).toBe("fingerprint");
    writeFileSync(join(plain, "b.txt"), "b");
    expect((await verifyProject(opts)).ran).toBe(true);
    expect(runs(counter)).toBe(2);
  });
});

describe("property: no second run on an unchanged tree, always a run on a changed one", () => {
  it("over random edits, touches and checks", async () => {
    const small = makeRepo(20, "tc-verify-prop-");
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom("edit", "touch", "add", "remove-added", "check"), {
            minLength: 1,
            maxLength: 8,
          }),
          async (ops) => {
            const cacheDir = mkdtempSync(join(scratch, "pcache-"));
            const counter = join(cacheDir, "count");
            const opts = { settings: countingCheck(counter), cwd: small, cacheDir };
            let lastChecked: string | null = null;
            let n = 0;
            for (const op of ops) {
              n += 1;
              if (op === "edit") appendFileSync(join(small, "d1", "f1.txt"), `${n}\n`);
              if (op === "touch") {
                const t = new Date(Date.now() + n * 1_000);
                utimesSync(join(small, "d2", "f2.txt"), t, t);
              }
              if (op === "add") writeFileSync(join(small, `extra-${n}.txt`), "x");
              if (op === "remove-added")
                execFileSync("git", ["clean", "-qfx", "-e", "ignored"], { cwd: small });
              if (op !== "check") continue;
              const tree = treeSnapshot(small).fingerprint;
              const before = runs(counter);
              const out = await verifyProject(opts);
              expect(runs(counter) - before).toBe(tree === lastChecked ? 0 : 1);
              expect(out.result.tree).toBe(tree);
              lastChecked = tree;
            }
          },
        ),
        { numRuns: 25 },
      );
    } finally {
      rmSync(small, { recursive: true, force: true });
    }
  });
});
