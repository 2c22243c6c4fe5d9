import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hookCommand, isOurCommand, MISSING_SCRIPT_NOTE, shellQuote } from "./command.js";

const base = { nodePath: "/usr/bin/node", projectDir: "/home/u/app", portable: true };

describe("hookCommand", () => {
  it("writes a clone-portable command when the package is in the project's node_modules", () => {
    const { command, portable } = hookCommand({
      ...base,
      packageRoot: "/home/u/app/node_modules/todo-continuation",
      preset: "typeclaw",
    });
    expect(portable).toBe(true);
    const script = '"$CLAUDE_PROJECT_DIR/node_modules/todo-continuation/dist/hook/main.cjs"';
    expect(command).toBe(
      `[ -f ${script} ] && exec node ${script} hook claude-code --preset typeclaw; echo "${MISSING_SCRIPT_NOTE}" >&2`,
    );
  });

  it("falls back to absolute paths for a package outside the project or for user settings", () => {
    const global = hookCommand({ ...base, packageRoot: "/usr/lib/node_modules/todo-continuation" });
    const main = '"/usr/lib/node_modules/todo-continuation/dist/hook/main.cjs"';
    expect(global).toEqual({
      command: `[ -f ${main} ] && exec "/usr/bin/node" ${main} hook claude-code; echo "${MISSING_SCRIPT_NOTE}" >&2`,
      portable: false,
    });
    const user = hookCommand({
      ...base,
      portable: false,
      packageRoot: "/home/u/app/node_modules/todo-continuation",
    });
    expect(user.portable).toBe(false);
    expect(user.command).toContain('exec "/usr/bin/node"');
  });

  it("runs an explicit entry script", () => {
    expect(hookCommand({ ...base, packageRoot: "/x", entry: "/opt/tc/bin.js" }).command).toContain(
      'exec "/usr/bin/node" "/opt/tc/bin.js" hook claude-code;',
    );
  });

  it("prints one short line and exits 0 when the script is missing (a clone before npm install)", () => {
    const project = mkdtempSync(join(tmpdir(), "cc-command-"));
    try {
      const { command } = hookCommand({
        ...base,
        projectDir: project,
        packageRoot: join(project, "node_modules", "todo-continuation"),
      });
      const run = spawnSync("sh", ["-c", command], {
        env: { PATH: process.env.PATH, CLAUDE_PROJECT_DIR: project },
        input: "{}",
        encoding: "utf8",
      });
      expect(run.status).toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr).toBe(`${MISSING_SCRIPT_NOTE}\n`);
      // With the script present, it runs it with the hook's arguments.
      const main = join(project, "node_modules", "todo-continuation", "dist", "hook", "main.cjs");
      mkdirSync(join(main, ".."), { recursive: true });
      writeFileSync(main, "process.stdout.write(process.argv.slice(2).join(' '));");
      const ran = spawnSync("sh", ["-c", command], {
        env: { PATH: process.env.PATH, CLAUDE_PROJECT_DIR: project },
        encoding: "utf8",
      });
      expect(ran.stdout).toBe("hook claude-code");
      expect(ran.stderr).toBe("");
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it("quotes paths so the shell passes them through unchanged", () => {
    const tricky = '/tmp/a b/$HOME/`x`/"q"\\';
    const out = execFileSync("sh", ["-c", `printf %s ${shellQuote(tricky)}`], { encoding: "utf8" });
    expect(out).toBe(tricky);
  });
});

describe("isOurCommand", () => {
  it("recognizes every form this integration writes", () => {
    for (const packageRoot of ["/home/u/app/node_modules/todo-continuation", "/srv/checkout"]) {
      expect(isOurCommand(hookCommand({ ...base, packageRoot }).command)).toBe(true);
    }
    expect(
      isOurCommand(
        hookCommand({ ...base, packageRoot: "/x", entry: "/opt/x/dist/hosts/claude-code/bin.js" })
          .command,
      ),
    ).toBe(true);
    expect(isOurCommand("npx --no-install todo-continuation hook claude-code --preset pi")).toBe(
      true,
    );
    // What earlier versions wrote: still ours, so installing again replaces it.
    expect(isOurCommand('"/usr/bin/node" "/srv/checkout/dist/cli/main.js" hook claude-code')).toBe(
      true,
    );
  });

  it("leaves other people's hooks alone", () => {
    expect(isOurCommand("echo done")).toBe(false);
    expect(isOurCommand("other-tool hook claude-code")).toBe(false);
    expect(isOurCommand("todo-continuation list")).toBe(false);
    expect(isOurCommand(42)).toBe(false);
  });
});
