import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { hookDatabaseUrl, hookFailure, parseHookArgs, readHookInput } from "./process.js";
import { HOOK_RUNNERS, loadHookRunner } from "./runners.js";

describe("hook process plumbing", () => {
  it("reads all of stdin and refuses more than the limit", async () => {
    const input = () => Readable.from([Buffer.from('{"a":'), Buffer.from("1}")]);
    await expect(readHookInput({ stdin: input() })).resolves.toBe('{"a":1}');
    await expect(readHookInput({ stdin: input() }, 6)).rejects.toThrow(
      /hook input exceeds 6 bytes/,
    );
  });

  it("reads a descriptor directly, with the same limit, and never touches the stream then", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-hook-input-"));
    try {
      const file = join(dir, "event.json");
      const text = `{"big":"${"é".repeat(100_000)}"}`;
      writeFileSync(file, text);
      const untouched = (stdinFd: number) => ({
        get stdin(): NodeJS.ReadableStream {
          throw new Error("the stream was used");
        },
        stdinFd,
      });
      const fd = openSync(file, "r");
      try {
        await expect(readHookInput(untouched(fd))).resolves.toBe(text);
      } finally {
        closeSync(fd);
      }
      const again = openSync(file, "r");
      try {
        await expect(readHookInput(untouched(again), 1000)).rejects.toThrow(
          /hook input exceeds 1000 bytes/,
        );
      } finally {
        closeSync(again);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("finishes through the stream when a non-blocking descriptor has nothing yet", async () => {
    // A pipe whose writer has not written yet: the direct read would block, so it must give way.
    const child = spawn(process.execPath, [
      "-e",
      `setTimeout(() => process.stdout.write('{"late":true}'), 100)`,
    ]);
    const fd = (child.stdout as unknown as { _handle: { fd: number } })._handle.fd;
    await expect(readHookInput({ stdin: child.stdout, stdinFd: fd })).resolves.toBe(
      '{"late":true}',
    );
  });

  it("reads every host's options the same way, naming the host in its errors", () => {
    expect(parseHookArgs("codex", ["hook", "codex", "--preset", "omo", "--schema", "s"])).toEqual({
      preset: "omo",
      dir: undefined,
      databaseUrl: undefined,
      schema: "s",
      nudgeAfterQuestions: false,
      help: false,
    });
    // `--event` only for a host whose payloads name no event, and only a name it gives.
    expect(parseHookArgs("copilot", ["--event", "agentStop"], ["agentStop"]).event).toBe(
      "agentStop",
    );
    expect(() => parseHookArgs("copilot", ["--event", "stop"], ["agentStop"])).toThrow(
      '--event must be one of agentStop, got "stop"',
    );
    expect(() => parseHookArgs("codex", ["--event", "agentStop"])).toThrow(/event/);
    expect(parseHookArgs("gemini", ["--nudge-after-questions", "-h"])).toMatchObject({
      nudgeAfterQuestions: true,
      help: true,
    });
    expect(() => parseHookArgs("gemini", ["codex"])).toThrow(
      /hook gemini: unexpected argument "codex"; this is the gemini hook/,
    );
    expect(() =>
      parseHookArgs("claude-code", ["--dir", "/d", "--database-url", "postgres://x"]),
    ).toThrow(/hook claude-code: --dir and --database-url name two different stores/);
    expect(() => parseHookArgs("codex", ["--presett", "omo"])).toThrow(/--presett/);
  });

  it("uses a database only when one is named, and never two stores at once", () => {
    const env = { TODO_CONTINUATION_DATABASE_URL: "postgres://from-env/db" };
    expect(hookDatabaseUrl({ env: {}, root: "/r" })).toBeNull();
    expect(hookDatabaseUrl({ env, root: "/r" })).toBe("postgres://from-env/db");
    expect(hookDatabaseUrl({ env, root: "/r", dir: "/d" })).toBeNull();
    expect(hookDatabaseUrl({ env, root: "/r", databaseUrl: "postgres://flag/db" })).toBe(
      "postgres://flag/db",
    );
    expect(() =>
      hookDatabaseUrl({ env, root: "/r", dir: "/d", databaseUrl: "postgres://x" }),
    ).toThrow(/two different stores/);
    expect(() => hookDatabaseUrl({ env: {}, root: "/r", dir: " " })).toThrow(/--dir/);
    expect(() => hookDatabaseUrl({ env: {}, root: "/r", databaseUrl: "" })).toThrow(
      /--database-url/,
    );
  });

  it("says what failed and what the host does next, on stderr only", () => {
    expect(hookFailure(new Error("disk full"), "allowing the stop")).toEqual({
      stdout: "",
      stderr: ["todo-continuation: hook failed, allowing the stop: disk full"],
    });
  });

  it("loads a host's hook by name, and nothing for an unknown name", async () => {
    expect(Object.keys(HOOK_RUNNERS)).toContain("claude-code");
    expect(typeof (await loadHookRunner("claude-code"))).toBe("function");
    expect(await loadHookRunner("opencode")).toBeNull();
    expect(await loadHookRunner("toString")).toBeNull();
    expect(await loadHookRunner(undefined)).toBeNull();
  });
});
