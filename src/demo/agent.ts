import { findTool } from "../core/dialects/index.js";
import type { Scope, StopReason, TodoTool, ToolResult } from "../core/types.js";
import type { ContinuationRuntime, IdleResult, Nudge } from "../runtime/runtime.js";
import { nudgeLabel, type Transcript } from "./transcript.js";

/**
 * A simulated clock, so the scenarios' minutes pass at once and every run
 * steps the same. It starts an hour back so that everything the demo records
 * lies in the past when `show` and `why` look at it with the real clock.
 */
export class DemoClock {
  constructor(private at: number) {}
  now = (): number => this.at;
  advance(ms: number): void {
    this.at += ms;
  }
}

/** Token usage of one simulated turn: plausible numbers, cached context excluded from spend. */
const TURN_USAGE = { input: 1_800, output: 450, cacheRead: 12_000, cacheWrite: 0 };

/**
 * A scripted stand-in for an agent and its host: it calls the real todo tools
 * and reports turns and idles to the real runtime, exactly as a host
 * integration does, but its "model" is this script. Every step is printed.
 */
export class SimulatedAgent {
  readonly nudges: Nudge[] = [];
  readonly decisions: IdleResult[] = [];
  #runtime: ContinuationRuntime;

  constructor(
    runtime: ContinuationRuntime,
    readonly scope: Scope,
    private readonly tools: TodoTool[],
    private readonly transcript: Transcript,
    private readonly clock: DemoClock,
  ) {
    this.#runtime = runtime;
  }

  /** After a restart, the same agent talks to the new process's runtime. */
  reconnect(runtime: ContinuationRuntime): void {
    this.#runtime = runtime;
  }

  get runtime(): ContinuationRuntime {
    return this.#runtime;
  }

  async userSays(text: string): Promise<void> {
    this.clock.advance(20_000);
    this.transcript.line("user", text);
    await this.#runtime.turnStarted(this.scope, { real: true });
  }

  async #call(name: string, input: unknown): Promise<ToolResult> {
    const tool = findTool(this.tools, name);
    if (!tool) throw new Error(`demo: the dialect has no ${name} tool`);
    this.clock.advance(3_000);
    const result = await this.#runtime.callTool(this.scope, tool, input);
    if (result.isError) throw new Error(`demo: ${name} failed: ${result.text}`);
    return result;
  }

  /** Writes items and returns their ids. */
  async write(items: string[]): Promise<string[]> {
    const result = await this.#call("todo_write", { items });
    const ids = (result.details.ids as string[] | undefined) ?? [];
    this.transcript.line("agent", `todo_write: ${items.length} items (ids ${ids.join(", ")})`);
    return ids;
  }

  async done(...ids: string[]): Promise<void> {
    for (const id of ids) await this.#call("todo_update", { id, status: "done" });
    this.transcript.line("agent", `todo_update: ${ids.map((id) => `#${id}`).join(", ")} done`);
  }

  async block(id: string, reason: string): Promise<void> {
    await this.#call("todo_update", { id, status: "blocked", reason });
    this.transcript.line("agent", `todo_update: #${id} blocked (${reason})`);
  }

  say(text: string): void {
    this.transcript.line("agent", text);
  }

  /** The assistant turn ends; the host reports how. */
  async stops(
    stopReason: StopReason,
    options: { injected?: boolean; restartCaused?: boolean } = {},
  ) {
    this.clock.advance(15_000);
    this.transcript.line(
      "host",
      `turn ended: ${stopReason}${options.restartCaused ? " (caused by the restart)" : ""}`,
    );
    await this.#runtime.turnEnded(this.scope, {
      stopReason,
      usage: TURN_USAGE,
      injected: options.injected === true,
      restartCaused: options.restartCaused === true,
    });
  }

  /** A turn started by our nudge (or a host kick): it resets nothing. */
  async injectedTurn(work: () => Promise<void>, stopReason: StopReason = "stop"): Promise<void> {
    await this.#runtime.turnStarted(this.scope, { real: false });
    await work();
    await this.stops(stopReason, { injected: true });
  }

  /** The session goes idle: the runtime decides, persists, then delivers. */
  async idle(options: { showNudge?: boolean } = {}): Promise<IdleResult> {
    this.clock.advance(1_000);
    const result = await this.#runtime.runIdle(this.scope, {
      trigger: "idle",
      deliver: (nudge) => {
        this.nudges.push(nudge);
      },
    });
    this.decisions.push(result);
    if (result.action === "inject") {
      this.transcript.line("runtime", `idle -> INJECT ${nudgeLabel(result.nudge)}`);
      if (options.showNudge) this.transcript.quote(result.nudge.text);
    } else {
      this.transcript.line("runtime", `idle -> skip: ${result.reason}`);
    }
    return result;
  }

  /** Skip reasons of every decision so far, in order ("inject" for a nudge). */
  outcomes(): string[] {
    return this.decisions.map((d) => (d.action === "inject" ? "inject" : d.reason));
  }
}
