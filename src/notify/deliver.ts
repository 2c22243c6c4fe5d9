import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { NotifySettings } from "../config/notify.js";
import { type NotifyPayload, payloadEnv } from "./payload.js";

/** What one delivery did: one line of the notify log, and of `notify test`. */
export interface DeliveryResult {
  target: "command" | "webhook" | "delivery";
  ok: boolean;
  /** The HTTP status, or the command's exit code; null when there was none. */
  status: number | null;
  /** Why it failed, in a few words. */
  error: string | null;
  ms: number;
}

const TAIL_CHARS = 500;

/** Starts the clock for one delivery; the returned function makes its result. */
function resultFor(target: DeliveryResult["target"]) {
  const started = Date.now();
  return (ok: boolean, status: number | null, error: string | null): DeliveryResult => ({
    target,
    ok,
    status,
    error,
    ms: Date.now() - started,
  });
}

function tail(text: string): string {
  const t = text.trim();
  return t.length > TAIL_CHARS ? `...${t.slice(-TAIL_CHARS)}` : t;
}

/**
 * Runs the command with the payload on stdin and the TODO_CONTINUATION_*
 * variables set. A string runs in the shell; a list runs its first item with
 * the rest as arguments. Killed (its whole process group) at the time limit.
 */
export function runNotifyCommand(
  command: string | string[],
  payload: NotifyPayload,
  options: { timeoutMs: number; env: Record<string, string | undefined> },
): Promise<DeliveryResult> {
  const done = resultFor("command");
  return new Promise((resolve) => {
    const [file, ...args] = typeof command === "string" ? [command] : command;
    const cwd =
      payload.projectDir !== null && existsSync(payload.projectDir)
        ? payload.projectDir
        : undefined;
    let output = "";
    let timedOut = false;
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file as string, args, {
        shell: typeof command === "string",
        cwd,
        env: { ...options.env, ...payloadEnv(payload) },
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
    } catch (error) {
      resolve(done(false, null, `could not start: ${(error as Error).message}`));
      return;
    }
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, options.timeoutMs);
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-4 * TAIL_CHARS);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    // A command that does not read its stdin must not fail the delivery.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(`${JSON.stringify(payload)}\n`);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve(done(false, null, `could not start: ${error.message}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (timedOut) resolve(done(false, null, `timed out after ${options.timeoutMs} ms`));
      else if (code === 0) resolve(done(true, 0, null));
      else {
        const why = code === null ? `killed by ${signal}` : `exit ${code}`;
        const out = tail(output);
        resolve(done(false, code, out === "" ? why : `${why}: ${out}`));
      }
    });
  });
}

/** POSTs the payload as JSON; any 2xx is delivered. Aborted at the time limit; redirects are not followed. */
export async function postWebhook(
  url: string,
  payload: NotifyPayload,
  options: { timeoutMs: number },
): Promise<DeliveryResult> {
  const result = resultFor("webhook");
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": `todo-continuation/${payload.package.version}`,
      },
      body: JSON.stringify(payload),
      redirect: "manual",
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    const body = await response.text().catch(() => "");
    if (response.status >= 200 && response.status < 300) return result(true, response.status, null);
    const text = tail(body);
    return result(
      false,
      response.status,
      `HTTP ${response.status}${text === "" ? "" : `: ${text}`}`,
    );
  } catch (error) {
    const e = error as Error & { cause?: { message?: string } };
    const why =
      e.name === "TimeoutError" || e.name === "AbortError"
        ? `timed out after ${options.timeoutMs} ms`
        : (e.cause?.message ?? e.message);
    return result(false, null, why);
  }
}

/**
 * Delivers one payload to every configured target, side by side; never
 * throws, never retries. Each target has the settings' time limit.
 */
export async function deliverPayload(
  payload: NotifyPayload,
  settings: NotifySettings,
  env: Record<string, string | undefined>,
): Promise<DeliveryResult[]> {
  const work: Promise<DeliveryResult>[] = [];
  if (settings.command !== null) {
    work.push(runNotifyCommand(settings.command, payload, { timeoutMs: settings.timeoutMs, env }));
  }
  if (settings.webhook !== null) {
    work.push(postWebhook(settings.webhook, payload, { timeoutMs: settings.timeoutMs }));
  }
  return Promise.all(work);
}
