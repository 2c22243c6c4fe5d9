import {
  type ScopeLimits,
  type ScopeLimitsOptions,
  ScopeLimitsResolver,
} from "../config/scope-limits.js";
import type {
  ContinuationState,
  Decision,
  Scope,
  ScopeSnapshot,
  TodoSummary,
} from "../core/types.js";
import type { ContinuationRuntime, Nudge } from "../runtime/runtime.js";

/** A dry-run decision on a scope, with the limits it was judged by. */
export interface Judged {
  decision: Decision;
  summary: TodoSummary;
  nudge: Nudge | null;
  limits: ScopeLimits;
}

export interface ScopeJudgeOptions extends Omit<ScopeLimitsOptions, "fallback"> {
  /** How long a project's answer stands (see `ScopeLimitsResolver`); absent: for the judge's life. */
  maxAgeMs?: number;
}

/**
 * Every reader that explains or projects a scope's limits (`why`, `show`,
 * `list`, `resume --add`, the dashboard) judges through this, so each uses
 * the limits the scope's hook decided with: the project's config file found
 * from the folder the scope recorded (under the `--preset` its host was given, when it recorded
 * one), else the reader's own runtime (its `--preset`, or the defaults). One runtime per distinct answer, so many
 * scopes of one project cost one read of its file and one runtime.
 */
export class ScopeJudge {
  readonly base: ContinuationRuntime;
  readonly #resolver: ScopeLimitsResolver;
  readonly #runtimes = new WeakMap<ScopeLimits, ContinuationRuntime>();

  constructor(base: ContinuationRuntime, options: ScopeJudgeOptions) {
    this.base = base;
    this.#resolver = new ScopeLimitsResolver({
      ...options,
      fallback: { preset: base.preset.name, limits: base.limits },
      now: () => base.now(),
    });
  }

  limitsOf(state: Pick<ContinuationState, "projectDir" | "presetOption">): ScopeLimits {
    return this.#resolver.forState(state);
  }

  /** A runtime over the same store that decides by `limits` (the base one when they are its own). */
  runtimeFor(limits: ScopeLimits): ContinuationRuntime {
    // The reader's own settings (no file, no preset recorded by the scope's host): its runtime.
    if (limits.file === null && limits.limits === this.base.limits) return this.base;
    let runtime = this.#runtimes.get(limits);
    if (runtime === undefined) {
      runtime = this.base.withSettings({ preset: limits.preset, limits: limits.limits });
      this.#runtimes.set(limits, runtime);
    }
    return runtime;
  }

  /**
   * What the scope's hook would decide on this snapshot, without writing.
   * A project file that cannot be used decides `config-invalid`, as the hook
   * does: the limits it sets are unknown, so no nudge.
   */
  preview(snapshot: ScopeSnapshot, now: number = this.base.now()): Judged {
    const limits = this.limitsOf(snapshot.state);
    const made = this.runtimeFor(limits).preview(snapshot, {}, now);
    if (limits.problem !== null) {
      return {
        decision: { action: "skip", reason: "config-invalid", state: snapshot.state },
        summary: made.summary,
        nudge: null,
        limits,
      };
    }
    return { decision: made.decision, summary: made.summary, nudge: made.nudge, limits };
  }

  /** `preview` on the stored snapshot. */
  async explain(scope: Scope): Promise<Judged & { snapshot: ScopeSnapshot }> {
    const snapshot = await this.base.store.read(scope);
    return { ...this.preview(snapshot), snapshot };
  }
}
