import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { hookCommand, isOurCommand, shellQuote } from "./command.js";

const base = { nodePath: "/usr/bin/node", projectDir: "/home/u/app", portable: true };

describe("hookCommand", () => {
  it("writes a clone-portable command when the package is in the project's node_modules", () => {
    const { command, portable } = hookCommand({
      ...base,
      packageRoot: "/home/u/app/node_modules/todo-continuation",
      preset: "typeclaw",
    });
    expect(portable).toBe(true);
    expect(command).toBe(
      'node "$CLAUDE_PROJECT_DIR/node_modules/todo-continuation/dist/cli/main.js" hook claude-code --preset typeclaw',
    );
  });

  it("falls back to absolute paths for a package outside the project or for user settings", () => {
    const global = hookCommand({ ...base, packageRoot: "/usr/lib/node_modules/todo-continuation" });
    expect(global).toEqual({
      command:
        '"/usr/bin/node" "/usr/lib/node_modules/todo-continuation/dist/cli/main.js" hook claude-code',
      portable: false,
    });
    const user = hookCommand({
      ...base,
      portable: false,
      packageRoot: "/home/u/app/node_modules/todo-continuation",
    });
    expect(user.portable).toBe(false);
    expect(user.command.startsWith('"/usr/bin/node"')).toBe(true);
  });

  it("runs an explicit entry script", () => {
    expect(hookCommand({ ...base, packageRoot: "/x", entry: "/opt/tc/bin.js" }).command).toBe(
      '"/usr/bin/node" "/opt/tc/bin.js" hook claude-code',
    );
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
  });

  it("leaves other people's hooks alone", () => {
    expect(isOurCommand("echo done")).toBe(false);
    expect(isOurCommand("other-tool hook claude-code")).toBe(false);
    expect(isOurCommand("todo-continuation list")).toBe(false);
    expect(isOurCommand(42)).toBe(false);
  });
});
