import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/openai-server.js";
import { answersNudge, cli, qwenSuite, readSession, runQwen, todoWrite } from "./harness.js";

const suite = qwenSuite();

/**
 * A user's own settings, in a layout of their own (tabs, CRLF, no final
 * newline), with a Stop hook. `$version` is there as Qwen Code itself writes
 * it: 0.24.4 adds `"$version": 4` to a settings file without one at start,
 * an edit of its own that uninstall would (rightly) keep.
 */
function userSettings(marker: string): string {
  const value = {
    model: { name: "scripted" },
    hooks: {
      Stop: [{ hooks: [{ type: "command", command: `echo stop >> ${JSON.stringify(marker)}` }] }],
    },
    $version: 4,
  };
  return JSON.stringify(value, null, "\t").replace(/\n/g, "\r\n");
}

describe("install qwen / uninstall qwen", () => {
  it("keeps the user's hook running beside ours, is idempotent, and uninstalls to the original bytes", async () => {
    const model = await suite.serve([
      todoWrite(["Write the code", "in_progress"], ["Test it", "pending"]),
      textReply("Pausing."),
      todoWrite(["Write the code", "completed"], ["Test it", "completed"]),
      textReply("Done."),
    ]);
    const project = suite.project();
    const settingsPath = join(project.dir, ".qwen", "settings.json");
    // Start again from the user's own file: uninstall what the suite installed, then write it.
    cli(project, ["uninstall", "qwen", "--project-dir", project.dir]);
    expect(existsSync(settingsPath)).toBe(false);
    const marker = join(project.root, "user-stop-hook.log");
    mkdirSync(join(project.dir, ".qwen"), { recursive: true });
    const original = userSettings(marker);
    writeFileSync(settingsPath, original);
    const gitignore = join(project.dir, ".gitignore");
    const first = cli(project, ["install", "qwen", "--project-dir", project.dir]);
    expect(first).toContain("added Stop hook");
    expect(readFileSync(gitignore, "utf8")).toContain("/.qwen/todo-continuation/");
    const installed = readFileSync(settingsPath, "utf8");
    expect(installed).toContain("\r\n\t");
    const again = cli(project, ["install", "qwen", "--project-dir", project.dir]);
    expect(again).toContain("already installed");
    expect(readFileSync(settingsPath, "utf8")).toBe(installed);

    const run = await runQwen(project, model, suite.trap(), { prompt: "Write it" });
    expect(run.code, run.stderr).toBe(0);
    expect(model.chatRequests().filter(answersNudge)).toHaveLength(1);
    // The user's Stop hook ran at both stops, beside ours.
    expect(readFileSync(marker, "utf8").trim().split("\n")).toHaveLength(2);
    const { log } = await readSession(project, run.sessionId as string);
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "no-incomplete-todos"]);

    const removed = cli(project, ["uninstall", "qwen", "--project-dir", project.dir]);
    expect(readFileSync(settingsPath, "utf8"), removed).toBe(original);
    expect(removed).toContain("restored");
    expect(existsSync(gitignore) ? readFileSync(gitignore, "utf8") : "").not.toContain(
      "todo-continuation",
    );
  });

  it("says that todo_write is off when nothing turns it on", () => {
    const project = suite.project();
    writeFileSync(join(project.home, ".qwen", "settings.json"), "{}");
    const report = cli(project, ["install", "qwen", "--user", "--project-dir", project.dir]);
    expect(report).toContain("todo_write tool is off by default");
    cli(project, ["uninstall", "qwen", "--user", "--project-dir", project.dir]);
    expect(readFileSync(join(project.home, ".qwen", "settings.json"), "utf8")).toBe("{}");
  });
});
