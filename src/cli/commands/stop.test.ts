import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFileStore } from "../../store/file/index.js";
import { runCli } from "../test-support/run-cli.js";
import { seed, TUI } from "../test-support/seed.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tc-cli-stop-"));
  const store = createFileStore({ root: dir });
  await seed(store);
  await store.close();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(["--dir", dir, ...args]);

describe("stop and resume", () => {
  it("stops a scope durably, and why names the stop, until resume", async () => {
    const stop = await cli("stop", "tui");
    expect(stop.code).toBe(0);
    expect(stop.stdout).toBe(
      `Stopped tui (shared) (${TUI.key}): no nudges until \`todo-continuation resume ${TUI.key}\`.\n`,
    );
    expect(JSON.parse((await cli("why", "tui", "--json")).stdout)).toMatchObject({
      reason: "continuation-stopped",
    });
    expect((await cli("list")).stdout).toMatch(/^tui .*stopped by user$/m);

    const resume = await cli("resume", "tui", "--json");
    expect(resume.code).toBe(0);
    expect(JSON.parse(resume.stdout)).toEqual({
      key: TUI.key,
      label: "tui (shared)",
      stopped: false,
    });
    const why = JSON.parse((await cli("why", "tui", "--json")).stdout) as { reason: string | null };
    expect(why.reason).not.toBe("continuation-stopped");
  });

  it("accepts a full key that is not in the store yet, so a scope can be stopped in advance", async () => {
    const run = await cli("stop", "cron/sbackup", "--json");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ key: "cron/sbackup", stopped: true });
    expect(JSON.parse((await cli("show", "backup", "--json")).stdout)).toMatchObject({
      state: { stopped: true },
    });
  });

  it("refuses a name that is neither a scope nor a full key", async () => {
    const run = await cli("stop", "session/bad");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no scope named "session/bad"');
  });
});
