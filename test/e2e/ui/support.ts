import { type ChildProcess, execFile, spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type Browser, chromium } from "playwright-core";

/** What the dashboard's browser tests share: the built CLI, the system's chromium, `ui` started. */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const CLI = join(ROOT, "dist/cli/main.js");
export const CHROMIUM = process.env.TODO_CONTINUATION_CHROMIUM ?? "/usr/bin/chromium";
/** Set to a folder to refresh the screenshots in the docs from a run. */
export const SCREENSHOTS = process.env.TODO_CONTINUATION_SCREENSHOTS;
export const run = promisify(execFile);

/** The built CLI on the store in `dir`; resolves with its stdout. */
export async function cli(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [CLI, "--dir", dir, ...args]);
  return stdout;
}

/** Starts `ui` and resolves with its URL once it prints one. */
export function startUi(dir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI, "--dir", dir, "ui", "--json"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolveUrl, reject) => {
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":\s*"([^"]+)"/.exec(out);
      if (match) resolveUrl({ child, url: match[1]! });
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("exit", (code) => reject(new Error(`ui exited with ${code}: ${err}`)));
  });
}

/** The system's chromium, headless, as every dashboard test drives it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
}
