import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTaskFolder, taskFolder } from "./task-files.js";

const made: string[] = [];
/** A temp folder removed when the file's tests end. */
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("taskFolder", () => {
  it("follows the config folder and a shared list id", () => {
    expect(taskFolder("s1", { HOME: "/h" })).toBe("/h/.claude/tasks/s1");
    expect(taskFolder("s1", { HOME: "/h", CLAUDE_CONFIG_DIR: "/c" })).toBe("/c/tasks/s1");
    expect(taskFolder("s1", { HOME: "/h", CLAUDE_CODE_TASK_LIST_ID: "team" })).toBe(
      "/h/.claude/tasks/team",
    );
  });

  it("refuses a list name that is not a plain file name", () => {
    expect(taskFolder("../x", { HOME: "/h" })).toBeNull();
    expect(taskFolder("..", { HOME: "/h" })).toBeNull();
    expect(taskFolder("a/b", { HOME: "/h" })).toBeNull();
  });
});

describe("readTaskFolder", () => {
  it("reads every task file, distrusting the broken ones", async () => {
    const dir = join(temp("cc-tasks-"), "s1");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "1.json"),
      JSON.stringify({ id: "1", subject: "A", status: "pending" }),
    );
    writeFileSync(join(dir, "2.json"), "{half");
    writeFileSync(
      join(dir, "3.json"),
      JSON.stringify({ id: "4", subject: "wrong name", status: "pending" }),
    );
    writeFileSync(
      join(dir, "5.json"),
      JSON.stringify({ id: "5", subject: "E", status: "deleted" }),
    );
    writeFileSync(join(dir, ".lock"), "");
    const files = await readTaskFolder(dir);
    expect(files).toEqual(
      new Map<string, unknown>([
        ["1", { id: "1", content: "A", status: "pending" }],
        ["2", null],
        ["3", null],
        ["5", "deleted"],
      ]),
    );
  });

  it("reads no task from a FIFO or a device in the folder (it would block or never end)", async () => {
    const dir = join(temp("cc-tasks-"), "s1");
    mkdirSync(dir);
    execFileSync("mkfifo", [join(dir, "1.json")]);
    symlinkSync("/dev/zero", join(dir, "2.json"));
    writeFileSync(
      join(dir, "3.json"),
      JSON.stringify({ id: "3", subject: "C", status: "pending" }),
    );
    expect(await readTaskFolder(dir)).toEqual(
      new Map<string, unknown>([
        ["1", null],
        ["2", null],
        ["3", { id: "3", content: "C", status: "pending" }],
      ]),
    );
  });

  it("is null for a folder that does not exist", async () => {
    expect(await readTaskFolder(join(tmpdir(), "no-such-task-folder-xyz"))).toBeNull();
  });
});
