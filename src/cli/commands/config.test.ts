import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../test-support/run-cli.js";

let root: string;
let repo: string;
let env: Record<string, string>;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "tc-cli-config-"));
  repo = join(root, "home", "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(join(repo, "src"));
  writeFileSync(
    join(repo, "todo-continuation.config.json"),
    JSON.stringify({ preset: "typeclaw", verify: { command: "npm test", timeoutMs: 90_000 } }),
  );
  env = { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "xdg") };
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const cli = (args: string[], cwd = join(repo, "src")) =>
  runCli(["--dir", join(root, "store"), ...args], { env, cwd });

describe("config and trust", () => {
  it("config prints each value with its source, and the trust state", async () => {
    const run = await cli(["config"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`file: ${join(repo, "todo-continuation.config.json")}`);
    expect(run.stdout).toContain(
      "NOT trusted: verify does not run until you run `todo-continuation trust`",
    );
    expect(run.stdout).toMatch(/preset\s+"typeclaw"\s+\(file\)/);
    expect(run.stdout).toMatch(/maxTokens\s+25000\s+\(preset\)/);
    expect(run.stdout).toMatch(/command\s+"npm test"\s+\(file\)/);
    expect(run.stdout).toMatch(/when\s+"finished"\s+\(default\)/);
    const flagged = await cli(["--preset", "omo", "config", "--json"]);
    const json = JSON.parse(flagged.stdout) as { preset: unknown; verify: { timeoutMs: unknown } };
    expect(json.preset).toEqual({ value: "omo", source: "flag" });
    expect(json.verify.timeoutMs).toEqual({ value: 90_000, source: "file" });
  });

  it("trust records the file; an edit needs trusting again; --revoke forgets it", async () => {
    const trusted = await cli(["trust"]);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain("verify will run: npm test");
    expect((await cli(["config"])).stdout).toContain("trust: trusted: ");
    writeFileSync(
      join(repo, "todo-continuation.config.json"),
      JSON.stringify({ verify: { command: "npm test -- --bail" } }),
    );
    expect((await cli(["config"])).stdout).toContain("changed since it was trusted");
    await cli(["trust"]);
    expect((await cli(["trust", "--revoke"])).stdout).toContain("Revoked trust in");
    expect((await cli(["config"])).stdout).toContain("NOT trusted");
  });

  it("an invalid file is a clear error naming the file and field, and is not trusted", async () => {
    writeFileSync(
      join(repo, "todo-continuation.config.json"),
      JSON.stringify({ verify: { command: "" } }),
    );
    const run = await cli(["config"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      `${join(repo, "todo-continuation.config.json")}: verify.command must be`,
    );
    const trust = await cli(["trust"]);
    expect(trust.code).not.toBe(0);
    expect(trust.stderr).toContain("fix it before trusting it");
  });

  it("outside any project: no file, the defaults", async () => {
    mkdirSync(join(root, "plain", ".git"), { recursive: true });
    const run = await cli(["config"], join(root, "plain"));
    expect(run.stdout).toContain("file: none");
    expect(run.stdout).toContain("verify: none");
    expect(run.stdout).toContain("notify: none");
    expect((await cli(["trust"], join(root, "plain"))).stderr).toContain("nothing to trust");
  });

  it("prints notify with its defaults and sources", async () => {
    writeFileSync(
      join(repo, "todo-continuation.config.json"),
      JSON.stringify({ notify: { webhook: "http://127.0.0.1:9/x", events: ["done"] } }),
    );
    const run = await cli(["config"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/notify:\n {2}webhook +"http:\/\/127\.0\.0\.1:9\/x" {2}\(file\)/);
    expect(run.stdout).toMatch(/ {2}timeoutMs +5000 {2}\(default\)/);
    expect(JSON.parse((await cli(["config", "--json"])).stdout).notify).toEqual({
      command: null,
      webhook: "http://127.0.0.1:9/x",
      events: ["done"],
      timeoutMs: 5000,
    });
  });
});
