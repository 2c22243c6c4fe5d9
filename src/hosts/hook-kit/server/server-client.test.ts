import { spawn } from "node:child_process";
import {
  chmodSync,
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assertBuilt, BUILT_DIST } from "../../../test-support/built.js";
import { fdBlocks } from "../fd-blocks.js";
import { askServer, readStdin } from "./server-client.js";
import { serverFiles } from "./server-files.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tc-server-client-"));
  made.push(dir);
  return dir;
}

/**
 * Runs `readStdin` in a new process (built package) on a pipe its parent writes in two pieces,
 * 150 ms apart; `nonBlocking` first sets the pipe not to block.
 */
function readPiecewise(nonBlocking: boolean): Promise<{ text: string; blocks: boolean }> {
  assertBuilt("hosts/hook-kit/server/server-client.js");
  const script = `
    import { fdBlocks } from ${JSON.stringify(`${BUILT_DIST}/hosts/hook-kit/fd-blocks.js`)};
    import { readStdin } from ${JSON.stringify(`${BUILT_DIST}/hosts/hook-kit/server/server-client.js`)};
    // Node's own stdin stream, once made, sets the pipe not to block (and reads nothing itself).
    if (${nonBlocking}) process.stdin;
    const blocks = fdBlocks(0);
    process.stdout.write(JSON.stringify({ blocks, text: readStdin(0) }));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", () => {
      try {
        resolve(JSON.parse(out) as { text: string; blocks: boolean });
      } catch (error) {
        reject(new Error(`no answer from the reader (${String(error)}): ${out}`));
      }
    });
    child.stdin.write('{"part": 1, ');
    setTimeout(() => child.stdin.end('"end": "é"}'), 150);
  });
}

describe("the hook's stdin", () => {
  it("is read whole from a pipe that blocks, as its pieces come", async () => {
    expect(await readPiecewise(false)).toEqual({ blocks: true, text: '{"part": 1, "end": "é"}' });
  });

  it("is read whole from a descriptor that does not block (no piece lost to EAGAIN)", async () => {
    expect(await readPiecewise(true)).toEqual({ blocks: false, text: '{"part": 1, "end": "é"}' });
  });

  it("tells a descriptor that blocks from one that does not", () => {
    const dir = tempDir();
    const file = join(dir, "in.json");
    writeFileSync(file, "{}");
    const blocking = openSync(file, "r");
    const nonBlocking = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      expect(fdBlocks(blocking)).toBe(true);
      expect(fdBlocks(nonBlocking)).toBe(false);
      expect(readStdin(blocking)).toBe("{}");
      // A descriptor that is not open has no flags to read: read the patient way, which fails.
      expect(fdBlocks(987654)).toBe(false);
    } finally {
      closeSync(blocking);
      closeSync(nonBlocking);
    }
  });
});

describe("the question", () => {
  it("is created closed to others, carries the hook's umask, and leaves the umask as it was", async () => {
    const runtime = tempDir();
    chmodSync(runtime, 0o700);
    const files = serverFiles(runtime, join(BUILT_DIST, "hook"), {});
    // A server that answers each question with the mode of its file and its header's umask.
    const server = spawn(
      process.execPath,
      [
        "-e",
        `
        const fs = require("node:fs");
        const [folder, prefix] = process.argv.slice(1);
        fs.watch(folder, (_e, name) => {
          const m = name && new RegExp("^" + prefix + "\\\\.q\\\\.(.+)$").exec(name);
          if (!m) return;
          const claimed = folder + "/" + prefix + ".c." + m[1];
          try { fs.renameSync(folder + "/" + name, claimed); } catch { return; }
          const mode = fs.statSync(claimed).mode & 0o777;
          const text = fs.readFileSync(claimed, "utf8");
          const header = JSON.parse(text.slice(0, text.indexOf("\\n")));
          const stdout = JSON.stringify({ mode, umask: header.umask, input: text.slice(text.indexOf("\\n") + 1) });
          fs.writeFileSync(folder + "/" + prefix + ".u." + m[1], JSON.stringify({ v: 1, kind: "done", code: 0, stdout, stderr: "" }));
          fs.renameSync(folder + "/" + prefix + ".u." + m[1], folder + "/" + prefix + ".a." + m[1]);
        });
        process.stdout.write("ready");
        `,
        runtime,
        files.prefix,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise((resolve) => server.stdout.once("data", resolve));
      // The pid file names a process that runs (this one's server); it is read, not checked.
      writeFileSync(files.pid, `${server.pid}\n`, { mode: 0o600 });
      const input = join(tempDir(), "in.json");
      writeFileSync(input, '{"hook_event_name":"Stop"}');
      const fd = openSync(input, "r");
      const before = process.umask(0o022);
      try {
        // Work for after the answer runs once the question is handed over, not before.
        const seen: string[][] = [];
        const whileWaiting = () => void seen.push(readdirSync(runtime));
        const io = { env: {}, cwd: "/", stdinFd: fd, whileWaiting };
        let outcome = askServer(files, "claude-code", [], io, 2000);
        expect(outcome.kind).toBe("answered");
        expect(seen).toHaveLength(1);
        expect(seen[0]?.some((name) => /\.(q|c|u|a)\./.test(name))).toBe(true);
        expect(process.umask()).toBe(0o022);
        if (outcome.kind !== "answered") return;
        expect(JSON.parse(outcome.stdout)).toEqual({
          mode: 0o600,
          umask: 0o022,
          input: '{"hook_event_name":"Stop"}',
        });
        // A head start that fails costs nothing: the answer is printed as ever.
        const failing = () => {
          throw new Error("no /proc");
        };
        outcome = askServer(files, "claude-code", [], { ...io, whileWaiting: failing }, 2000);
        expect(outcome.kind === "answered" && JSON.parse(outcome.stdout).input).toBe("");
      } finally {
        process.umask(before);
        closeSync(fd);
      }
    } finally {
      server.kill("SIGKILL");
    }
  });
});
