import type { StopReason, Todo, TokenUsage } from "../core/types.js";

/** What a simulated agent did in one turn. */
export interface TurnResult {
  stopReason: StopReason;
  usage: TokenUsage;
  /** The agent ended the turn with a question to the user. */
  asks?: boolean;
  /** Background work started this turn, running for this many ms. */
  startsBackgroundMs?: number;
  /** The process died at the end of the turn and restarts. */
  crashes?: boolean;
  /** The user pressed Esc during this turn. */
  userAborts?: boolean;
  /**
   * The user spoke during this turn and sent the agent elsewhere ("Stop.
   * Inspect the broken context first."): the turn answered the user.
   */
  redirects?: boolean;
  /** The host compacted the session after this turn (a summary turn follows, nobody's request). */
  compacts?: boolean;
  /**
   * Items (by index) marked completed this turn without the work being done.
   * Every other item that became completed was really done.
   */
  fakes?: number[];
}

export interface TurnContext {
  /** The live list; the agent edits it in place, as its todo tool calls would. */
  todos: Todo[];
  /** 0 for the user's own turn, then 1, 2, ... */
  turn: number;
  /** Background work the agent waits on is still running. */
  backgroundRunning: boolean;
  /** The user redirected the agent earlier in the run. */
  redirected: boolean;
  /** The previous turn ended in a provider error. */
  lastFailed: boolean;
  /**
   * The truth the sim keeps and the agent's list may not tell: whether each
   * item's work (by index) is really done. The project's check passes when
   * all of it is. An agent that does work it had only claimed sets it here.
   */
  work: boolean[];
  random: () => number;
}

export interface Behaviour {
  name: string;
  description: string;
  /** Items this agent could complete in the run, given a list of `total`. */
  completable: (total: number) => number;
  turn: (ctx: TurnContext) => TurnResult;
}

/** A typical turn's usage: a long cached context, modest fresh input and output. */
function usage(turn: number, output = 800, input = 2_000): TokenUsage {
  const cacheRead = 30_000 + turn * 4_000;
  return { input, output, cacheRead, cacheWrite: 0, total: input + output + cacheRead };
}

function completeNext(todos: Todo[], n: number): number {
  let done = 0;
  for (const todo of todos) {
    if (done >= n) break;
    if (todo.status === "pending" || todo.status === "in_progress") {
      todo.status = "completed";
      done++;
    }
  }
  const next = todos.find((t) => t.status === "pending");
  if (next && !todos.some((t) => t.status === "in_progress")) next.status = "in_progress";
  return done;
}

const ended = (turn: number, extra: Partial<TurnResult> = {}): TurnResult => ({
  stopReason: "stop",
  usage: usage(turn),
  ...extra,
});

export const BEHAVIOURS: readonly Behaviour[] = [
  {
    name: "steady-worker",
    description: "works the whole list in its first turn",
    completable: (total) => total,
    turn: (ctx) => {
      completeNext(ctx.todos, ctx.todos.length);
      return { stopReason: "stop", usage: usage(ctx.turn, 6_000, 8_000) };
    },
  },
  {
    name: "lazy-stopper",
    description: "closes one item, then stops and waits",
    completable: (total) => total,
    turn: (ctx) => {
      completeNext(ctx.todos, 1);
      return ended(ctx.turn);
    },
  },
  {
    name: "never-progressing",
    description: "answers every turn without touching the list",
    completable: () => 0,
    turn: (ctx) => ended(ctx.turn),
  },
  {
    name: "reworder",
    description: "rewords an open item each turn, finishes nothing",
    completable: () => 0,
    turn: (ctx) => {
      const open = ctx.todos.filter((t) => t.status === "pending" || t.status === "in_progress");
      const target = open[ctx.turn % Math.max(1, open.length)];
      if (target) target.content = `${target.content.replace(/ \(v\d+\)$/, "")} (v${ctx.turn + 1})`;
      return ended(ctx.turn);
    },
  },
  {
    name: "toggler",
    description: "marks an item done, then undoes it, back and forth",
    completable: () => 0,
    turn: (ctx) => {
      const first = ctx.todos[0];
      if (first) first.status = first.status === "completed" ? "pending" : "completed";
      return ended(ctx.turn);
    },
  },
  {
    name: "asker",
    description: "does two items, then asks the user a question and waits",
    completable: (total) => Math.min(2, total),
    turn: (ctx) => {
      if (ctx.turn === 0) completeNext(ctx.todos, 2);
      return ended(ctx.turn, { asks: true });
    },
  },
  {
    name: "aborted-run",
    description: "the user presses Esc after the first item",
    completable: (total) => Math.min(1, total),
    turn: (ctx) => {
      if (ctx.turn === 0) {
        completeNext(ctx.todos, 1);
        return { stopReason: "aborted", usage: usage(ctx.turn), userAborts: true };
      }
      return ended(ctx.turn);
    },
  },
  {
    name: "crash-looper",
    description: "closes one item per turn, and its process dies after every turn",
    completable: (total) => total,
    turn: (ctx) => {
      completeNext(ctx.todos, 1);
      return { stopReason: "aborted", usage: usage(ctx.turn), crashes: true };
    },
  },
  {
    name: "background-worker",
    description: "starts long background work, cannot progress until it ends, then one item a turn",
    completable: (total) => total,
    turn: (ctx) => {
      if (ctx.turn === 0) {
        completeNext(ctx.todos, 1);
        return ended(ctx.turn, { startsBackgroundMs: 5 * 60_000 });
      }
      if (ctx.backgroundRunning) return ended(ctx.turn);
      completeNext(ctx.todos, 1);
      return ended(ctx.turn);
    },
  },
  {
    name: "redirecting-user",
    description:
      "closes one item; the user then interrupts the next turn to send the agent elsewhere, and it never returns to the list",
    completable: (total) => Math.min(1, total),
    turn: (ctx) => {
      if (ctx.turn === 0) {
        completeNext(ctx.todos, 1);
        return ended(ctx.turn);
      }
      // The agent does what the user asked instead, and leaves the list alone.
      return ended(ctx.turn, ctx.redirected ? {} : { redirects: true });
    },
  },
  {
    name: "compacting-worker",
    description: "closes one item per turn; the host compacts the session after every second turn",
    completable: (total) => total,
    turn: (ctx) => {
      completeNext(ctx.todos, 1);
      return ended(ctx.turn, ctx.turn % 2 === 1 ? { compacts: true } : {});
    },
  },
  {
    name: "flaky-provider",
    description:
      "closes one item per turn, but 30% of turns end in a transient provider error (never two in a row)",
    completable: (total) => total,
    turn: (ctx) => {
      if (!ctx.lastFailed && ctx.random() < 0.3) {
        return { stopReason: "transient_error", usage: usage(ctx.turn, 0, 2_000) };
      }
      completeNext(ctx.todos, 1);
      return ended(ctx.turn);
    },
  },
  {
    name: "false-finisher",
    description:
      "marks every item done in its first turn having done the work of one or two; told the check fails, does the work of two more per turn",
    completable: (total) => total,
    turn: (ctx) => {
      if (ctx.turn === 0) {
        const real = 1 + Math.floor(ctx.random() * 2);
        const fakes: number[] = [];
        ctx.todos.forEach((todo, i) => {
          if (todo.status === "completed" || todo.status === "cancelled") return;
          todo.status = "completed";
          if (i >= real) fakes.push(i);
        });
        return ended(ctx.turn, { fakes });
      }
      // Nudged with the failing check: does the work it had only claimed, two items a turn.
      let fixed = 0;
      for (let i = 0; i < ctx.work.length && fixed < 2; i++) {
        if (!ctx.work[i]) {
          ctx.work[i] = true;
          fixed++;
        }
      }
      return ended(ctx.turn);
    },
  },
  {
    name: "token-hungry",
    description: "one item per turn, at 30k output and 20k fresh input tokens a turn",
    completable: (total) => total,
    turn: (ctx) => {
      completeNext(ctx.todos, 1);
      return { stopReason: "stop", usage: usage(ctx.turn, 30_000, 20_000) };
    },
  },
];
