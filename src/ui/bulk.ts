import { randomBytes } from "node:crypto";
import type { ContinuationRuntime } from "../runtime/runtime.js";
import type { ScopeSource } from "./scope-source.js";
import type { OverviewRow } from "./view-model.js";

/**
 * Stop-all (for one host or every scope) and bulk resume, each in two steps:
 * the first request names what would change and gets a one-time confirmation
 * code for exactly those scopes; only a second request carrying that code
 * changes anything, through the runtime's own `stop` and `resume` (as the
 * scope page and the CLI do). A page on another site cannot get the code: the
 * dashboard's token and origin checks come first.
 */

export type BulkAction = "stop" | "resume";

/** How long a confirmation code stays valid. */
const CONFIRM_TTL_MS = 5 * 60_000;

/** Codes kept at once; the oldest goes first (a page that asks and never confirms). */
const MAX_PENDING = 64;

export interface BulkPlan {
  action: BulkAction;
  /** In words: "every scope", "host codex", "3 selected scopes", "every stopped scope". */
  target: string;
  keys: string[];
  labels: string[];
  code: string;
  expiresAt: number;
}

export type BulkStep =
  | { kind: "confirm"; plan: BulkPlan }
  | { kind: "done"; action: BulkAction; count: number }
  | { kind: "refused"; status: number; text: string };

/** Whether the action would change a row: stop what is not stopped, resume what is. */
export function applies(action: BulkAction, row: OverviewRow): boolean {
  if (row.state === "unreadable") return false;
  return action === "stop" ? row.state !== "stopped" : row.state === "stopped";
}

export class BulkActions {
  readonly #pending = new Map<string, BulkPlan>();
  readonly #source: ScopeSource;
  readonly #runtime: ContinuationRuntime;

  constructor(source: ScopeSource, runtime: ContinuationRuntime) {
    this.#source = source;
    this.#runtime = runtime;
  }

  /**
   * One step. Without `confirm`: the scopes it would change and a code to confirm them. With
   * the code from that answer: does it, to those scopes only (not to scopes that appeared
   * since), and only when the action and form still name the same target.
   */
  async step(action: BulkAction, form: URLSearchParams): Promise<BulkStep> {
    const confirm = form.get("confirm");
    const now = this.#runtime.now();
    this.#expire(now);
    if (confirm !== null && confirm !== "") {
      const plan = this.#pending.get(confirm);
      this.#pending.delete(confirm ?? "");
      if (plan === undefined || plan.action !== action || plan.expiresAt < now) {
        return {
          kind: "refused",
          status: 409,
          text: "Nothing was done: the confirmation expired or was already used. Ask again.",
        };
      }
      const count = await this.#run(plan);
      return { kind: "done", action, count };
    }
    const picked = this.#pick(action, form);
    if (typeof picked === "string") return { kind: "refused", status: 400, text: picked };
    const rows = picked.rows;
    const plan: BulkPlan = {
      action,
      target: picked.target,
      keys: rows.map((r) => r.key),
      labels: rows.map((r) => r.label),
      code: randomBytes(16).toString("base64url"),
      expiresAt: now + CONFIRM_TTL_MS,
    };
    if (plan.keys.length > 0) {
      if (this.#pending.size >= MAX_PENDING) {
        this.#pending.delete(this.#pending.keys().next().value!);
      }
      this.#pending.set(plan.code, plan);
    }
    return { kind: "confirm", plan };
  }

  #pick(
    action: BulkAction,
    form: URLSearchParams,
  ): { target: string; rows: OverviewRow[] } | string {
    const rows = this.#source.rows();
    if (action === "stop") {
      const host = (form.get("host") ?? "").trim();
      if (host !== "" && !this.#source.summary().hosts.includes(host)) {
        return `Nothing was done: no scope has the host ${JSON.stringify(host)}.`;
      }
      return {
        target: host === "" ? "every scope" : `host ${host}`,
        rows: rows.filter((r) => (host === "" || r.host === host) && applies("stop", r)),
      };
    }
    if (form.get("all") === "1") {
      return { target: "every stopped scope", rows: rows.filter((r) => applies("resume", r)) };
    }
    const keys = [...new Set(form.getAll("key"))];
    if (keys.length === 0) return "Nothing was done: no scope was selected.";
    const picked: OverviewRow[] = [];
    for (const key of keys) {
      const row = this.#source.row(key);
      if (row === undefined) return `Nothing was done: no scope named ${key}.`;
      if (applies("resume", row)) picked.push(row);
    }
    return {
      target: keys.length === 1 ? "1 selected scope" : `${keys.length} selected scopes`,
      rows: picked,
    };
  }

  async #run(plan: BulkPlan): Promise<number> {
    let count = 0;
    const done: string[] = [];
    try {
      for (const key of plan.keys) {
        const scope = this.#source.scope(key);
        // Gone since the question was asked: nothing to stop or resume.
        if (scope === undefined) continue;
        if (plan.action === "stop") await this.#runtime.stop(scope);
        else await this.#runtime.resume(scope);
        done.push(key);
        count++;
      }
    } finally {
      await this.#source.refresh(done);
    }
    return count;
  }

  #expire(now: number): void {
    for (const [code, plan] of this.#pending) if (plan.expiresAt < now) this.#pending.delete(code);
  }
}
