import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { HOOK_SCRIPT, hookScript, shellQuote } from "./command.js";
import { commandRuns, hookStartsFinding } from "./doctor-command.js";
import { packageRootOf } from "./host-install.js";

const root = mkdtempSync(join(tmpdir(), "tc-doctor-command-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const input = {
  nodePath: "/usr/bin/node",
  packageRoot: "/home/u/app/node_modules/todo-continuation",
  projectDir: "/home/u/app",
  portable: true,
};

/** The guard the settings hosts (Claude Code, Qwen Code) put around the run. */
const guarded = (node: string, script: string, args: string) =>
  `[ -f ${script} ] && exec ${node} ${script} ${args}; echo "todo-continuation: hook skipped" >&2`;

describe("commandRuns", () => {
  it("reads every form an installer writes: guarded or not, portable or absolute", () => {
    const portable = hookScript(input, HOOK_SCRIPT, "CLAUDE_PROJECT_DIR");
    expect(commandRuns(guarded(portable.node, portable.script, "hook qwen"), "qwen", "/p")).toEqual(
      { node: "node", script: "/p/node_modules/todo-continuation/dist/hook/main.cjs" },
    );
    const fixed = hookScript({ ...input, portable: false }, HOOK_SCRIPT, "GEMINI_PROJECT_DIR");
    const script = "/home/u/app/node_modules/todo-continuation/dist/hook/main.cjs";
    const expected = { node: "/usr/bin/node", script };
    expect(commandRuns(`${fixed.node} ${fixed.script} hook gemini`, "gemini", "/p")).toEqual(
      expected,
    );
    const claude = guarded(fixed.node, fixed.script, "hook claude-code --preset parley");
    expect(commandRuns(claude, "claude-code", "/p")).toEqual(expected);
    const copilot = `${fixed.node} ${fixed.script} hook copilot --event agentStop`;
    expect(commandRuns(copilot, "copilot", "/p")).toEqual(expected);
    // An older install's entry, and an escaped dollar that is no variable.
    expect(commandRuns('"node" "/x/dist/cli/main.js" hook codex', "codex", "/p")).toEqual({
      node: "node",
      script: "/x/dist/cli/main.js",
    });
    expect(commandRuns('node "/a/\\$CODEX_PROJECT_DIR/m.cjs" hook codex', "codex", "/p")).toEqual({
      node: "node",
      script: "/a/$CODEX_PROJECT_DIR/m.cjs",
    });
  });

  it("finds no run of another host, or in a command that is not ours", () => {
    expect(commandRuns('"/n" "/s" hook claude-code', "claude", "/p")).toBeNull();
    expect(commandRuns('"/n" "/s" hook qwen', "gemini", "/p")).toBeNull();
    expect(commandRuns("echo hi", "qwen", "/p")).toBeNull();
    expect(commandRuns("hook qwen", "qwen", "/p")).toBeNull();
  });

  it("gives back the program and script it was given, whatever their characters", () => {
    // Pieces a path may hold that look like the command's own: the host's words, a variable.
    const piece = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(" hook codex", " hook copilot ", "$CODEX_PROJECT_DIR/", "\\", '"', "'", ";"),
    );
    const path = fc
      .array(piece, { minLength: 1, maxLength: 5 })
      .map((parts) => `/${parts.join("").replace(/\0/g, "")}`);
    fc.assert(
      fc.property(path, path, fc.constantFrom("codex", "claude-code", "copilot"), (n, s, host) => {
        const command = `${shellQuote(n)} ${shellQuote(s)} hook ${host} --preset parley`;
        expect(commandRuns(command, host, "/p")).toEqual({ node: n, script: s });
      }),
      { numRuns: 500 },
    );
  });
});

describe("hookStartsFinding", () => {
  const ctx = { env: { PATH: process.env.PATH }, cwd: root };
  const entry = join(packageRootOf(), ...HOOK_SCRIPT);
  const command = (script: string) =>
    `${shellQuote(process.execPath)} ${shellQuote(script)} hook qwen`;

  it("finds the package's own hook starting", async () => {
    expect(await hookStartsFinding("qwen", command(entry), "s.json", "fix", ctx)).toEqual({
      host: "qwen",
      check: "loadable",
      ok: true,
      message: `the hook command starts (${entry})`,
    });
  });

  it("names a script that is gone, one that does not start, and a command it cannot read", async () => {
    const gone = join(root, "gone.cjs");
    expect(await hookStartsFinding("qwen", command(gone), "s.json", "fix", ctx)).toMatchObject({
      ok: false,
      message: `the hook command in s.json runs ${gone}, which is not there`,
      fix: "fix",
    });
    const broken = join(root, "broken.cjs");
    writeFileSync(broken, 'console.error("SyntaxError: the build is broken"); process.exit(3);\n');
    chmodSync(broken, 0o644);
    const failed = await hookStartsFinding("qwen", command(broken), "s.json", "fix", ctx);
    expect(failed).toMatchObject({ ok: false, check: "loadable" });
    expect(failed.message).toBe(
      `${process.execPath} ${broken} does not start: SyntaxError: the build is broken`,
    );
    expect(await hookStartsFinding("qwen", "echo hi", "s.json", "fix", ctx)).toMatchObject({
      ok: false,
      message: "cannot tell which script the hook command in s.json runs",
    });
  });
});
