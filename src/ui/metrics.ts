import type { DecisionLogEntry, Episode, Scope } from "../core/types.js";
import type { RowSummary } from "./row-index.js";
import { type OverviewRow, STATE_NAMES, scopeHost } from "./view-model.js";

/**
 * Counters for `/metrics`, in the Prometheus text format. Counters count what
 * this process saw happen since it started (decisions appearing in the logs,
 * token spend growing in episodes), which is what Prometheus' `rate()` expects;
 * gauges describe the store as it is now.
 */

function labelKey(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
}

class LabelledCounter {
  readonly #values = new Map<string, { labels: Record<string, string>; value: number }>();

  add(labels: Record<string, string>, by = 1): void {
    const key = labelKey(labels);
    const slot = this.#values.get(key);
    if (slot === undefined) this.#values.set(key, { labels, value: by });
    else slot.value += by;
  }

  entries(): { labels: Record<string, string>; value: number }[] {
    return [...this.#values.values()];
  }
}

export class DecisionCounters {
  readonly nudges = new LabelledCounter();
  readonly skips = new LabelledCounter();
  readonly deliveryFailures = new LabelledCounter();
  readonly continuationTokens = new LabelledCounter();
  storeErrors = 0;
  /** The open episode per scope, to see its token spend grow. */
  readonly #episodes = new Map<string, { host: string; id: string; tokens: number }>();

  /** Counts decisions that newly appeared in a scope's log. */
  count(scope: Scope, entries: readonly DecisionLogEntry[]): void {
    const host = scopeHost(scope);
    for (const entry of entries) {
      if (entry.action === "inject") this.nudges.add({ host });
      else if (entry.action === "delivery-failed") this.deliveryFailures.add({ host });
      else this.skips.add({ host, reason: entry.reason ?? "unknown" });
    }
  }

  /** Records a scope's open episode; token growth since the last look counts as spent. */
  setEpisode(scope: Scope, episode: Episode | null): void {
    const before = this.#episodes.get(scope.key);
    if (episode === null) {
      this.#episodes.delete(scope.key);
      return;
    }
    const host = scopeHost(scope);
    if (before !== undefined) {
      const spent = before.id === episode.id ? episode.tokens - before.tokens : episode.tokens;
      if (spent > 0) this.continuationTokens.add({ host }, spent);
    }
    this.#episodes.set(scope.key, { host, id: episode.id, tokens: episode.tokens });
  }
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function sample(name: string, labels: Record<string, string>, value: number): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return `${name}${pairs.length > 0 ? `{${pairs.join(",")}}` : ""} ${value}`;
}

function family(
  name: string,
  type: "counter" | "gauge",
  help: string,
  samples: { labels: Record<string, string>; value: number }[],
): string[] {
  return [
    `# HELP ${name} ${help}`,
    `# TYPE ${name} ${type}`,
    ...samples.map((s) => sample(name, s.labels, s.value)),
  ];
}

/** The whole `/metrics` body. */
export function renderMetrics(
  counters: DecisionCounters,
  rows: readonly OverviewRow[] | Pick<RowSummary, "byState" | "episodesByHost">,
): string {
  const counted = "byState" in rows ? rows : countRows(rows);
  const byState = new Map<string, number>(STATE_NAMES.map((s) => [s, counted.byState.get(s) ?? 0]));
  const episodes = counted.episodesByHost;
  const lines = [
    ...family(
      "todo_continuation_nudges_total",
      "counter",
      "Nudges injected, seen in the decision logs since this process started.",
      counters.nudges.entries(),
    ),
    ...family(
      "todo_continuation_skips_total",
      "counter",
      "Idle decisions that sent no nudge, by reason, seen since this process started.",
      counters.skips.entries(),
    ),
    ...family(
      "todo_continuation_delivery_failures_total",
      "counter",
      "Nudges whose delivery failed, seen since this process started.",
      counters.deliveryFailures.entries(),
    ),
    ...family(
      "todo_continuation_continuation_tokens_total",
      "counter",
      "Tokens spent by turns that continuations started (episode spend growth) since this process started.",
      counters.continuationTokens.entries(),
    ),
    ...family(
      "todo_continuation_active_episodes",
      "gauge",
      "Scopes with an open continuation episode.",
      [...episodes].map(([host, value]) => ({ labels: { host }, value })),
    ),
    ...family(
      "todo_continuation_scopes",
      "gauge",
      "Scopes in the store by state.",
      [...byState].map(([state, value]) => ({ labels: { state }, value })),
    ),
    ...family(
      "todo_continuation_store_errors_total",
      "counter",
      "Store reads that failed since this process started.",
      [{ labels: {}, value: counters.storeErrors }],
    ),
  ];
  return `${lines.join("\n")}\n`;
}

/** Rows per state and open episodes per host, counted from the rows themselves. */
function countRows(rows: readonly OverviewRow[]): Pick<RowSummary, "byState" | "episodesByHost"> {
  const byState = new Map<string, number>();
  const episodesByHost = new Map<string, number>();
  for (const row of rows) {
    byState.set(row.state, (byState.get(row.state) ?? 0) + 1);
    if (row.episodeId !== null) {
      episodesByHost.set(row.host, (episodesByHost.get(row.host) ?? 0) + 1);
    }
  }
  return { byState, episodesByHost };
}
