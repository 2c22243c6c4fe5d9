import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseScopeKey } from "../../core/scope/scope.js";
import { summarize } from "../../core/todo/summary.js";
import { createFileStore } from "../../store/file/index.js";
import { scopePaths } from "../../store/file/paths.js";
import { fixtureScope, writeScaleFixture } from "../../store/file/scale-fixture.js";
import { runCli } from "../test-support/run-cli.js";
import { countsOf, type ScopeRow } from "../views.js";

/** `list` over a store of many scopes, read in one pass. */

const SCOPES = 600;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tc-cli-list-"));
  await writeScaleFixture(dir, SCOPES, 3);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function cli(...args: string[]) {
  return runCli(["--dir", dir, ...args]);
}

describe("list over many scopes", () => {
  it("shows one row per scope, with what reading each scope alone gives", async () => {
    const run = await cli("list", "--json");
    expect(run.code).toBe(0);
    const rows = (JSON.parse(run.stdout) as { scopes: ScopeRow[] }).scopes;
    expect(rows).toHaveLength(SCOPES);
    const store = createFileStore({ root: dir });
    expect(rows.map((r) => r.key)).toEqual((await store.listScopes()).map((s) => s.key));
    for (const row of rows.filter((_, i) => i % 37 === 0)) {
      const scope = parseScopeKey(row.key)!;
      const snapshot = await store.read(scope);
      expect(row.counts).toEqual(countsOf(summarize(snapshot.todos)));
      expect(row.lastDecision).toEqual((await store.readLog(scope, 1))[0] ?? null);
      expect(row.problems).toEqual(await store.problems!(scope));
      expect(row.error).toBeNull();
    }
    await store.close();
    const text = await cli("list");
    expect(text.stdout.split("\n")[0]).toContain(`${SCOPES} scopes in ${dir}`);
    // The count line, the header and a line per scope.
    expect(text.stdout.trimEnd().split("\n")).toHaveLength(SCOPES + 2);
  });

  it("a scope that cannot be read is named and fails the command, the others still show", async () => {
    const broken = fixtureScope(11);
    const paths = scopePaths(join(dir, "todo"), broken);
    const outside = join(dir, "outside.json");
    await writeFile(outside, "{}");
    await rm(paths.todos);
    await symlink(outside, paths.todos);
    const run = await cli("list");
    expect(run.code).toBe(1);
    const lines = run.stdout.split("\n");
    expect(lines.find((l) => l.startsWith(`${broken.key} `))).toContain("UNREADABLE");
    expect(run.stdout).toContain(`${broken.key}:`);
    expect(run.stdout).toMatch(/Cannot be read: .*symlink/);
    // Table rows only: the note below the table names the scope followed by a colon.
    expect(lines.filter((l) => l.startsWith("session/") && !l.endsWith(":"))).toHaveLength(SCOPES);
    const json = JSON.parse((await cli("list", "--json")).stdout) as { scopes: ScopeRow[] };
    expect(json.scopes.find((s) => s.key === broken.key)?.error).toMatch(/symlink/);
    expect(json.scopes.filter((s) => s.error === null)).toHaveLength(SCOPES - 1);
  });
});
