import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { emptyState } from "../../core/engine/state.js";
import { startReceiver } from "../../notify/test-support/receiver.js";
import { createFileStore } from "../../store/file/index.js";
import { runCli } from "../test-support/run-cli.js";
import { scopeOf } from "../test-support/seed.js";

const scratch = mkdtempSync(join(tmpdir(), "tc-cli-notify-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A project with a config and its own HOME (so trust is the test's own). */
function project(config: unknown): { dir: string; env: Record<string, string> } {
  const root = mkdtempSync(join(scratch, "p-"));
  const dir = join(root, "repo");
  const home = join(root, "home");
  mkdirSync(join(dir, ".git"), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(dir, "todo-continuation.config.json"), JSON.stringify(config));
  return { dir, env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config") } };
}

describe("notify test", () => {
  it("sends nothing from an untrusted file and says what to run", async () => {
    const receiver = await startReceiver();
    try {
      const p = project({ notify: { webhook: receiver.url } });
      const run = await runCli(["notify", "test"], { cwd: p.dir, env: p.env });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /notify not sent: .* is not trusted; run `todo-continuation trust`/,
      );
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it("once trusted, sends a sample to the webhook and the command, and prints each answer", async () => {
    const receiver = await startReceiver();
    try {
      const out = join(scratch, "sample.json");
      const p = project({ notify: { webhook: receiver.url, command: `cat > ${out}` } });
      expect((await runCli(["trust"], { cwd: p.dir, env: p.env })).code).toBe(0);
      const run = await runCli(["notify", "test", "--event", "needs-input"], {
        cwd: p.dir,
        env: p.env,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/Sent a sample "needs-input" notification/);
      expect(run.stdout).toMatch(/delivered {2}webhook http:\/\/127\.0\.0\.1:\d+\/hook \(HTTP 204/);
      expect(run.stdout).toMatch(/delivered {2}command/);
      expect(JSON.parse(receiver.received[0]?.body ?? "")).toMatchObject({
        event: "needs-input",
        test: true,
      });
      expect(JSON.parse(readFileSync(out, "utf8")).event).toBe("needs-input");
    } finally {
      await receiver.close();
    }
  });

  it("a failing target exits 1 and names the failure; a bad event is a usage error", async () => {
    const p = project({ notify: { command: "exit 7" } });
    await runCli(["trust"], { cwd: p.dir, env: p.env });
    const run = await runCli(["notify", "test"], { cwd: p.dir, env: p.env });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAILED {5}command "exit 7": exit 7/);
    const bad = await runCli(["notify", "test", "--event", "finished"], { cwd: p.dir, env: p.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--event must be one of stopped, needs-input/);
  });

  it("why names a notify that waits for trust", async () => {
    const p = project({ notify: { webhook: "http://127.0.0.1:9/x" } });
    const dir = join(scratch, "why-store");
    const store = createFileStore({ root: dir });
    await store.transact(scopeOf({ kind: "tui" }), () => ({
      state: emptyState(),
      result: undefined,
    }));
    await store.close();
    const run = await runCli(["--dir", dir, "why", "tui"], { cwd: p.dir, env: p.env });
    expect(run.stdout).toMatch(/notify not sent: .* is not trusted/);
  });
});

describe("prune", () => {
  const DAY = 86_400_000;
  async function seeded(): Promise<string> {
    const dir = mkdtempSync(join(scratch, "store-"));
    const store = createFileStore({ root: dir });
    const old = Date.now() - 40 * DAY;
    for (const [id, at] of [
      ["old", old],
      ["new", Date.now()],
    ] as const) {
      await store.transact(scopeOf({ kind: "session", host: "test", sessionId: id }), () => ({
        todos: { todos: [{ content: "x", status: "completed" }], phases: [], nextId: 1 },
        state: { ...emptyState(), lastUserTurnAt: at },
        result: undefined,
      }));
    }
    await store.close();
    return dir;
  }

  function files(dir: string): string[] {
    return readdirSync(dir, { recursive: true }).map(String).sort();
  }

  it("is a dry run by default: the count and the scopes, nothing touched", async () => {
    const dir = await seeded();
    const before = files(dir);
    const run = await runCli(["--dir", dir, "prune", "--older-than", "30d"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^1 scope\(s\) would touch: older than 30d, state idle, done, stopped\. Dry run/,
    );
    expect(run.stdout).toContain("session/stest.sold");
    expect(run.stdout).not.toContain("session/stest.snew");
    const asked = await runCli(["--dir", dir, "prune", "--older-than", "30d", "--delete"]);
    expect(asked.stdout).toContain("Add --yes to do it.");
    expect(files(dir)).toEqual(before);
  });

  it("archives with --yes, and --restore brings it back", async () => {
    const dir = await seeded();
    const archive = join(scratch, `archive-${Date.now()}`);
    const run = await runCli([
      "--dir",
      dir,
      "prune",
      "--older-than",
      "30d",
      "--archive",
      archive,
      "--yes",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Pruned: archived 1 into .* of 1 scope\(s\)\./);
    expect((await runCli(["--dir", dir, "list", "--json"])).stdout).not.toContain("sold");
    const back = await runCli(["--dir", dir, "prune", "--restore", archive]);
    expect(back.code, back.stderr).toBe(0);
    expect((await runCli(["--dir", dir, "list", "--json"])).stdout).toContain("sold");
  });

  it("also removes hook claim folders and nudge notes nothing touched for as long", async () => {
    const dir = await seeded();
    const old = new Date(Date.now() - 40 * DAY);
    const claims = join(dir, "codex-events", "a".repeat(32));
    const fresh = join(dir, "codex-events", "b".repeat(32));
    mkdirSync(claims, { recursive: true });
    mkdirSync(fresh, { recursive: true });
    symlinkSync("user", join(claims, "Stop-0123"));
    mkdirSync(join(dir, "copilot-nudges"));
    const note = join(dir, "copilot-nudges", `${"c".repeat(64)}.sha256`);
    writeFileSync(note, "x");
    utimesSync(claims, old, old);
    utimesSync(note, old, old);
    const dry = await runCli(["--dir", dir, "prune", "--older-than", "30d", "--json"]);
    expect(JSON.parse(dry.stdout).sideFiles).toEqual([claims, note]);
    expect(existsSync(claims)).toBe(true);
    const run = await runCli(["--dir", dir, "prune", "--older-than", "30d", "--delete", "--yes"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Removed 2 hook claim folder(s) and nudge note(s).");
    expect([existsSync(claims), existsSync(note), existsSync(fresh)]).toEqual([false, false, true]);
  });

  it("a bad duration or state is an error naming it", async () => {
    const dir = await seeded();
    const bad = await runCli(["--dir", dir, "prune", "--older-than", "30"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--older-than "30" is not a duration');
    const state = await runCli([
      "--dir",
      dir,
      "prune",
      "--older-than",
      "1d",
      "--state",
      "finished",
    ]);
    expect(state.code).toBe(2);
    expect(state.stderr).toContain('--state "finished" is not a state');
  });
});
