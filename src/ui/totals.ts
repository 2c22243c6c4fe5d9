import type { DecisionLogEntry } from "../core/types.js";

/**
 * Totals per day (UTC) and per host of nudges, continuation tokens and cost,
 * computed from the scopes' decision logs, never counted in memory: each
 * scope's share is recomputed from its log whenever the scope is read, so a
 * restarted dashboard reading the same logs shows the same totals.
 */

export interface Totals {
  nudges: number;
  /** Growth of the episodes' token spend between the decisions the log keeps. */
  tokens: number;
  /** Growth of the episodes' cost, from decisions that carry one. */
  costUsd: number;
  /** Whether any decision of the day carried a cost. */
  priced: boolean;
}

export interface TotalsRow extends Totals {
  /** YYYY-MM-DD in UTC. */
  day: string;
  host: string;
}

const DAY_MS = 86_400_000;

/** Day names by day number: formatting a date is the costliest step of reading 10,000 logs. */
const DAY_NAMES = new Map<number, string>();

export function dayOf(at: number): string {
  const day = Math.floor(at / DAY_MS);
  let name = DAY_NAMES.get(day);
  if (name === undefined) {
    name = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (DAY_NAMES.size > 4096) DAY_NAMES.clear();
    DAY_NAMES.set(day, name);
  }
  return name;
}

function empty(): Totals {
  return { nudges: 0, tokens: 0, costUsd: 0, priced: false };
}

/**
 * One log's totals per day. An episode's tokens (and cost) are running totals
 * in each entry, so a day gets what they grew by since the episode's previous
 * entry; an episode's first kept entry counts in full (its earlier entries
 * were rotated away, or it is the first). Delivery failures carry no spend.
 */
export function logTotals(log: readonly DecisionLogEntry[]): Map<string, Totals> {
  const days = new Map<string, Totals>();
  const previous = new Map<string, { tokens: number; costUsd: number | undefined }>();
  for (const entry of log) {
    if (entry.action === "delivery-failed") continue;
    const day = dayOf(entry.at);
    let totals = days.get(day);
    if (totals === undefined) {
      totals = empty();
      days.set(day, totals);
    }
    if (entry.action === "inject") totals.nudges++;
    if (entry.episodeId === null) continue;
    const before = previous.get(entry.episodeId);
    totals.tokens += Math.max(0, entry.tokens - (before?.tokens ?? 0));
    if (entry.costUsd !== undefined) {
      totals.costUsd += Math.max(0, entry.costUsd - (before?.costUsd ?? 0));
      totals.priced = true;
    }
    previous.set(entry.episodeId, { tokens: entry.tokens, costUsd: entry.costUsd });
  }
  return days;
}

function add(into: Totals, from: Totals, sign: 1 | -1): void {
  into.nudges += sign * from.nudges;
  into.tokens += sign * from.tokens;
  into.costUsd += sign * from.costUsd;
  // Whether a day is priced is recounted from the scopes that still hold a cost.
}

/** The totals over every scope, kept by replacing one scope's share at a time. */
export class TotalsBook {
  readonly #byScope = new Map<string, { host: string; days: Map<string, Totals> }>();
  /** day -> host -> totals, with how many scope shares (and priced ones) make them up. */
  readonly #sums = new Map<
    string,
    Map<string, Totals & { shares: number; pricedShares: number }>
  >();

  /** Replaces a scope's share with the totals of its log (as read now). */
  set(key: string, host: string, log: readonly DecisionLogEntry[]): void {
    this.delete(key);
    const days = logTotals(log);
    if (days.size === 0) return;
    this.#byScope.set(key, { host, days });
    for (const [day, totals] of days) {
      let hosts = this.#sums.get(day);
      if (hosts === undefined) {
        hosts = new Map();
        this.#sums.set(day, hosts);
      }
      let sum = hosts.get(host);
      if (sum === undefined) {
        sum = { ...empty(), shares: 0, pricedShares: 0 };
        hosts.set(host, sum);
      }
      add(sum, totals, 1);
      sum.shares++;
      if (totals.priced) sum.pricedShares++;
    }
  }

  delete(key: string): void {
    const share = this.#byScope.get(key);
    if (share === undefined) return;
    this.#byScope.delete(key);
    for (const [day, totals] of share.days) {
      const hosts = this.#sums.get(day)!;
      const sum = hosts.get(share.host)!;
      add(sum, totals, -1);
      if (totals.priced) sum.pricedShares--;
      if (--sum.shares === 0) {
        hosts.delete(share.host);
        if (hosts.size === 0) this.#sums.delete(day);
      }
    }
  }

  /** The newest `days` days, newest first, hosts in name order. */
  rows(days = 14): TotalsRow[] {
    const out: TotalsRow[] = [];
    const newest = [...this.#sums.keys()].sort().reverse().slice(0, days);
    for (const day of newest) {
      const hosts = this.#sums.get(day)!;
      for (const host of [...hosts.keys()].sort()) {
        const sum = hosts.get(host)!;
        out.push({
          day,
          host,
          nudges: sum.nudges,
          tokens: sum.tokens,
          // Sums of many small prices drift: cents are what is shown.
          costUsd: Math.round(sum.costUsd * 1e6) / 1e6,
          priced: sum.pricedShares > 0,
        });
      }
    }
    return out;
  }
}
