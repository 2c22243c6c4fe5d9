import { afterEach, describe, expect, it } from "vitest";
import { createCodexDoctor } from "../../../src/hosts/codex/doctor.js";
import { textReply } from "../support/responses-server.js";
import { type CodexWorld, codexWorld, killCodex, STOPS_EARLY_TWICE } from "./codex-world.js";

const worlds: CodexWorld[] = [];
afterEach(async () => {
  killCodex();
  const done = worlds.splice(0);
  await Promise.all(done.map((w) => w.close()));
  for (const w of done) expect(w.outbound).toEqual([]);
});

/**
 * Ours in the project's config (the world's `install codex --project`) and in the user's: the
 * real Codex (0.169.0) starts both copies for every event, at once, with one payload. Before
 * the commands named their config, each stop was decided twice (`inject, stagnation` at every
 * stop: the second copy saw no progress since the first's nudge).
 */
describe("Codex CLI with our hooks in both the project's and the user's config", () => {
  it("runs both; each event is decided once; install and doctor say so", async () => {
    const replies = STOPS_EARLY_TWICE;
    const w = await codexWorld((_r, i) => replies[i] ?? textReply("extra"));
    worlds.push(w);
    expect(w.cli("install", "codex", "--user")).toContain("Codex runs both for every event");
    const hooks = await w.hooksList();
    const stops = hooks.filter((h) => h.eventName === "stop");
    expect(stops.map((h) => h.trustStatus)).toEqual(["trusted", "trusted"]);
    const run = await w.exec("Write the two steps.");
    expect(run.code, run.stderr).toBe(0);
    const log = await w.log(run.sessionId as string);
    expect(log.map((e) => e.reason ?? e.action)).toEqual([
      "inject",
      "inject",
      "no-incomplete-todos",
    ]);
    const doctor = createCodexDoctor({ version: async () => "0.169.0" });
    const findings = await doctor({ cwd: w.project, home: w.env.HOME as string, env: w.env });
    expect(findings.find((f) => f.check === "twice")).toMatchObject({ ok: true });
  });
});
