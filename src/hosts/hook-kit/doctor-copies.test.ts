import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BUNDLED_HOOK_HOSTS } from "./bundled-hosts.js";
import { twiceFinding } from "./doctor-copies.js";
import { ONE_COMMAND_PER_EVENT } from "./process.js";

const dir = mkdtempSync(join(tmpdir(), "tc-doctor-copies-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A package copy's hook entry whose `--help` is that of a version with (or without) claims. */
function copy(name: string, claims: boolean): string {
  const script = join(dir, `${name}.cjs`);
  const usage = `Usage: todo-continuation hook claude-code [options]\\n${claims ? ONE_COMMAND_PER_EVENT : ""}`;
  writeFileSync(script, `process.stdout.write(${JSON.stringify(usage)} + "\\n");\n`);
  return `"${process.execPath}" "${script}" hook claude-code`;
}

const ctx = { env: process.env, cwd: dir };
const project = (command: string) => ({
  path: "/p/.claude/settings.json",
  target: "project",
  command,
});
const user = (command: string) => ({
  path: "/home/u/.claude/settings.json",
  target: "user",
  command,
});

describe("twiceFinding", () => {
  it("says nothing of one command, or of the same command in two files (the host runs it once)", async () => {
    const command = copy("same", false);
    expect(await twiceFinding("claude-code", [project(command)], ctx)).toBeNull();
    expect(await twiceFinding("claude-code", [project(command), user(command)], ctx)).toBeNull();
    expect(await twiceFinding("claude-code", [project(command), user("")], ctx)).toBeNull();
  });

  it("finds two copies that claim fine: one handles each event", async () => {
    const found = await twiceFinding(
      "claude-code",
      [project(copy("new-a", true)), user(copy("new-b", true))],
      ctx,
    );
    expect(found).toMatchObject({ host: "claude-code", check: "twice", ok: true });
    expect(found?.message).toContain("/p/.claude/settings.json and /home/u/.claude/settings.json");
  });

  it("flags a copy from before the claims, naming it, with the uninstall that removes it", async () => {
    const old = copy("old", false);
    const found = await twiceFinding("claude-code", [project(copy("new", true)), user(old)], ctx);
    expect(found).toMatchObject({ check: "twice", ok: false });
    expect(found?.message).toContain(`/home/u/.claude/settings.json (${join(dir, "old.cjs")})`);
    expect(found?.message).toContain("each stop is decided twice");
    expect(found?.fix).toContain("todo-continuation uninstall claude-code --user");
  });

  it("leaves a command that names no script to the loadable check", async () => {
    const found = await twiceFinding(
      "claude-code",
      [project(copy("new-c", true)), user("/bin/true")],
      ctx,
    );
    expect(found?.ok).toBe(true);
  });

  it("is what this package's hook command says in every host's --help", () => {
    const main = join(dirname(fileURLToPath(import.meta.url)), "../../../dist/hook/main.cjs");
    for (const host of BUNDLED_HOOK_HOSTS) {
      const help = execFileSync(process.execPath, [main, "hook", host, "--help"], {
        encoding: "utf8",
        env: { ...process.env, TODO_CONTINUATION_HOOK_SERVER: "0" },
      });
      expect(help, host).toContain(ONE_COMMAND_PER_EVENT);
    }
  });
});
