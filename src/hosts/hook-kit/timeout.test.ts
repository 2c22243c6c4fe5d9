import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claudeCodeDoctor } from "../claude-code/doctor.js";
import { installClaudeCode } from "../claude-code/install.js";
import { createCodexDoctor } from "../codex/doctor.js";
import { installCodex } from "../codex/install.js";
import { geminiDoctor } from "../gemini/doctor.js";
import { installGemini } from "../gemini/install.js";
import { type VerifyFixture, verifyFixture } from "../test-support/verify-project.js";
import {
  BASE_HOOK_TIMEOUT_MS,
  checkHostCanWait,
  HOST_HOOK_LIMITS,
  stopHookTimeoutMs,
  stopTimeoutCovers,
} from "./timeout.js";

describe("the Stop hook timeout a check needs", () => {
  it("is the base timeout without a check, and covers a wait on another run plus its own run", () => {
    expect(stopHookTimeoutMs(null)).toBe(BASE_HOOK_TIMEOUT_MS);
    // 2 x 120 s + 10 s lock grace + 1 s kill grace + 30 s for the hook itself.
    expect(stopHookTimeoutMs(120_000)).toBe(281_000);
  });

  it("is refused, naming the host's limit, when the host cannot wait that long", () => {
    // Gemini CLI's timer takes at most 2^31-1 ms; a check of 1.1e9 ms needs twice that.
    expect(() =>
      checkHostCanWait("gemini", 1_100_000_000, "/p/todo-continuation.config.json"),
    ).toThrow(/needs a Stop hook timeout of 2200041 s.*Gemini CLI waits at most 2147483647 ms/);
    expect(() => checkHostCanWait("codex", 1_100_000_000)).not.toThrow();
    // The longest check the config allows (one hour) fits every host.
    for (const host of ["claude-code", "codex", "gemini"] as const) {
      expect(() => checkHostCanWait(host, 3_600_000)).not.toThrow();
    }
  });

  it("is judged against the host's default when the handler names none", () => {
    const check = { file: "/p/c.json", timeoutMs: 200_000, problem: null };
    expect(stopTimeoutCovers("codex", null, check)?.ok).toBe(true);
    expect(HOST_HOOK_LIMITS.gemini.defaultMs).toBe(60_000);
    expect(stopTimeoutCovers("gemini", null, check)).toMatchObject({ ok: false });
    expect(stopTimeoutCovers("gemini", 30_000, { ...check, timeoutMs: null })).toBeNull();
  });
});

let fx: VerifyFixture;
beforeEach(() => {
  fx = verifyFixture("tc-hook-timeout-");
});
afterEach(() => fx.cleanup());

const out = () => {
  const lines: string[] = [];
  return { lines, out: (l: string) => void lines.push(l) };
};

describe("installers and doctors", () => {
  it("Claude Code: the Stop hook covers verify.timeoutMs; doctor flags a raised limit", async () => {
    fx.config({ verify: { command: "npm test", timeoutMs: 300_000 } });
    const report = out();
    const result = await installClaudeCode({
      projectDir: fx.dir,
      env: fx.env,
      claudeVersion: "2.1.332",
      out: report.out,
    });
    const hooks = JSON.parse(readFileSync(result.settingsPath, "utf8")).hooks;
    expect(hooks.Stop[0].hooks[0].timeout).toBe(641);
    expect(hooks.UserPromptSubmit[0].hooks[0].timeout).toBe(30);
    expect(report.lines.join("\n")).toContain(
      "Stop hook timeout: 641 s, covering verify.timeoutMs",
    );
    const ctx = { cwd: fx.dir, home: fx.home, env: { ...fx.env, PATH: "/nonexistent" } };
    const before = await claudeCodeDoctor(ctx);
    expect(before.find((f) => f.check === "timeout")?.ok).toBe(true);
    expect(before.find((f) => f.check === "verify")).toMatchObject({
      ok: false,
      fix: "todo-continuation trust",
    });
    fx.config({ verify: { command: "npm test", timeoutMs: 600_000 } });
    fx.trust();
    const after = await claudeCodeDoctor(ctx);
    expect(after.find((f) => f.check === "timeout")).toMatchObject({
      ok: false,
      fix: "todo-continuation install claude-code --project",
    });
    expect(after.find((f) => f.check === "verify")?.ok).toBe(true);
    fx.config({ verify: { command: "" } });
    const broken = await claudeCodeDoctor(ctx);
    expect(broken.find((f) => f.check === "config")?.message).toContain("verify.command");
  });

  it("Codex: the Stop hook's timeout, hashed into its trust entry, covers the check", async () => {
    fx.config({ verify: { command: "make check", timeoutMs: 60_000 } });
    const codexHome = join(fx.root, "codex-home");
    mkdirSync(codexHome);
    const env = { ...fx.env, CODEX_HOME: codexHome };
    const report = out();
    const result = await installCodex({
      projectDir: fx.dir,
      env,
      nodePath: "/usr/bin/node",
      packageRoot: "/pkg",
      out: report.out,
    });
    const doc = parse(readFileSync(result.configPath, "utf8")) as {
      hooks: Record<string, { hooks: { timeout: number }[] }[]>;
    };
    expect(doc.hooks.Stop?.[0]?.hooks[0]?.timeout).toBe(161);
    expect(doc.hooks.UserPromptSubmit?.[0]?.hooks[0]?.timeout).toBe(30);
    const doctor = createCodexDoctor({ version: async () => "0.169.0" });
    const findings = await doctor({ cwd: fx.dir, home: fx.home, env });
    // The trust entries written match the hooks as installed, timeouts included.
    expect(findings.find((f) => f.check === "trust")?.ok).toBe(true);
    expect(findings.find((f) => f.check === "timeout")?.ok).toBe(true);
  });

  it("Gemini CLI: the AfterAgent hook's timeout (milliseconds) covers the check", async () => {
    fx.config({ verify: { command: "pytest -q", timeoutMs: 20_000 } });
    const report = out();
    const result = await installGemini({
      projectDir: fx.dir,
      env: fx.env,
      packageRoot: join(fx.dir, "node_modules", "todo-continuation"),
      out: report.out,
    });
    const hooks = JSON.parse(readFileSync(result.settingsPath, "utf8")).hooks;
    expect(hooks.AfterAgent[0].hooks[0].timeout).toBe(81_000);
    expect(hooks.BeforeAgent[0].hooks[0].timeout).toBe(30_000);
    expect(report.lines.join("\n")).toContain("AfterAgent hook timeout: 81000 ms");
    const findings = await geminiDoctor({ cwd: fx.dir, home: fx.home, env: fx.env });
    expect(findings.find((f) => f.check === "timeout")?.ok).toBe(true);
  });
});
