import { explainSkip } from "../core/explain/reasons.js";
import { canonicalText } from "../core/todo/model.js";
import type { ContinuationRuntime, IdleResult } from "../runtime/runtime.js";
import type { DemoClock, SimulatedAgent } from "./agent.js";
import type { Transcript } from "./transcript.js";

/** What a scenario may use: fresh agents, a restart, the transcript and the clock. */
export interface ScenarioEnv {
  agent(name: string): SimulatedAgent;
  /** Drops the current runtime and store and opens new ones on the same folder. */
  restart(): Promise<ContinuationRuntime>;
  transcript: Transcript;
  clock: DemoClock;
}

export interface ScenarioOutcome {
  pass: boolean;
  /** What happened, in one line: the evidence for PASS, or what went wrong. */
  detail: string;
}

export interface Scenario {
  /** Also the session id of its scope, so `show <name>` finds it. */
  name: string;
  title: string;
  run(env: ScenarioEnv): Promise<ScenarioOutcome>;
}

function reasonOf(result: IdleResult | undefined): string {
  if (result === undefined) return "no decision";
  return result.action === "inject" ? `inject #${result.nudge.autoTurn}` : result.reason;
}

function verdict(checks: [boolean, string][], success: string): ScenarioOutcome {
  const failed = checks.filter(([ok]) => !ok).map(([, what]) => what);
  return failed.length === 0
    ? { pass: true, detail: success }
    : { pass: false, detail: `expected ${failed.join("; ")}` };
}

const finisher: Scenario = {
  name: "finisher",
  title:
    "an agent writes four todos, does one and stops: it is nudged with the live list and finishes",
  async run({ agent }) {
    const a = agent("finisher");
    await a.userSays("Add input validation to the signup form.");
    const items = [
      "Validate the email field",
      "Enforce the password rules",
      "Show errors next to each field",
      "Add tests for the validators",
    ];
    const ids = await a.write(items);
    await a.done(ids[0] ?? "");
    a.say('"Email validation is in. Let me know if you want more."');
    await a.stops("stop");
    const first = await a.idle({ showNudge: true });
    const nudge = first.action === "inject" ? first.nudge.text : "";
    await a.injectedTurn(async () => {
      await a.done(...ids.slice(1));
    });
    const last = await a.idle();
    const listed = items.slice(1).every((item) => nudge.includes(canonicalText(item)));
    return verdict(
      [
        [first.action === "inject" && first.delivered, `a delivered nudge, got ${reasonOf(first)}`],
        [listed, "the nudge to list the three open items"],
        [!nudge.includes(items[0] ?? ""), "the nudge to leave out the finished item"],
        [
          last.action === "skip" && last.reason === "no-incomplete-todos",
          `no-incomplete-todos at the end, got ${reasonOf(last)}`,
        ],
        [a.nudges.length === 1, `exactly one nudge, got ${a.nudges.length}`],
      ],
      "nudged once with the 3 open items inline, then finished all 4; the next idle skipped (no-incomplete-todos)",
    );
  },
};

const stuck: Scenario = {
  name: "stuck",
  title: "an agent that never makes progress: stagnation ends it, and `why` explains",
  async run({ agent, clock, transcript }) {
    const a = agent("stuck");
    await a.userSays("Migrate the billing tables to the new schema.");
    await a.write(["Write the migration", "Backfill the new columns", "Drop the old table"]);
    a.say('"I will start on the migration."');
    await a.stops("stop");
    let result = await a.idle();
    // Each nudged turn ends without touching the list; the engine must let go on its own.
    for (let turn = 0; turn < 50 && result.action === "inject"; turn++) {
      await a.injectedTurn(async () => a.say('"Looking into it..." (no todo changes)'));
      result = await a.idle();
    }
    const explained = await a.runtime.explain(a.scope);
    const why =
      explained.decision.action === "skip"
        ? explainSkip(explained.decision.reason, {
            state: explained.decision.state,
            summary: explained.summary,
            limits: a.runtime.limits,
            now: clock.now(),
          })
        : "would nudge";
    transcript.line("note", `why stuck: ${why}`);
    return verdict(
      [
        [a.nudges.length >= 1, "at least one nudge before giving up"],
        [
          result.action === "skip" && result.reason === "stagnation",
          `stagnation, got ${reasonOf(result)}`,
        ],
        [
          explained.decision.action === "skip" && explained.decision.reason === "stagnation",
          "why to report stagnation",
        ],
      ],
      `${a.nudges.length === 1 ? "1 nudge" : `${a.nudges.length} nudges`} without progress, then skip (stagnation); why says: ${why.split(";")[0]}`,
    );
  },
};

const interrupted: Scenario = {
  name: "interrupted",
  title: "the user aborts mid-run: no nudge until the user speaks again",
  async run({ agent, clock }) {
    const a = agent("interrupted");
    await a.userSays("Rename the config keys and update the docs.");
    const ids = await a.write([
      "Rename the keys in config.ts",
      "Update the call sites",
      "Update the docs",
    ]);
    await a.done(ids[0] ?? "");
    await a.stops("stop");
    const first = await a.idle();
    const firstEpisode = first.action === "inject" ? first.nudge.episodeId : null;
    await a.runtime.turnStarted(a.scope, { real: false });
    a.say("(works on the call sites)");
    a.say("the user presses Esc");
    await a.stops("aborted", { injected: true });
    const blocked = [await a.idle()];
    clock.advance(60_000);
    blocked.push(await a.idle());
    await a.userSays("Sorry, go on.");
    await a.done(ids[1] ?? "");
    await a.stops("stop");
    const after = await a.idle();
    const afterEpisode = after.action === "inject" ? after.nudge.episodeId : null;
    await a.injectedTurn(async () => a.done(ids[2] ?? ""));
    const last = await a.idle();
    return verdict(
      [
        [first.action === "inject", `a nudge before the abort, got ${reasonOf(first)}`],
        [
          blocked.every((d) => d.action === "skip" && d.reason === "user-abort-blocked"),
          `user-abort-blocked while waiting, got ${blocked.map(reasonOf).join(", ")}`,
        ],
        [after.action === "inject", `a nudge after the user spoke, got ${reasonOf(after)}`],
        [
          afterEpisode !== null && afterEpisode !== firstEpisode,
          "a new episode after the user spoke",
        ],
        [
          last.action === "skip" && last.reason === "no-incomplete-todos",
          `no-incomplete-todos at the end, got ${reasonOf(last)}`,
        ],
      ],
      `after Esc, ${blocked.length} idles skipped (user-abort-blocked); the user's next message opened a new episode and nudging resumed`,
    );
  },
};

const restart: Scenario = {
  name: "restart",
  title: "a process restart mid-episode: the budget survives and the restart kick is skipped once",
  async run({ agent, restart, transcript }) {
    const a = agent("restart");
    await a.userSays("Upgrade the project's dependencies.");
    const ids = await a.write([
      "Bump the minor versions",
      "Fix the type errors",
      "Bump the major versions",
      "Update the lockfile",
      "Run the full test suite",
    ]);
    await a.done(ids[0] ?? "");
    await a.stops("stop");
    const n1 = await a.idle();
    await a.injectedTurn(async () => a.done(ids[1] ?? ""));
    const n2 = await a.idle();
    await a.runtime.turnStarted(a.scope, { real: false });
    await a.done(ids[2] ?? "");
    transcript.line(
      "note",
      "*** the process dies mid-turn; a new process starts a new runtime on the same folder ***",
    );
    a.reconnect(await restart());
    await a.stops("aborted", { injected: true, restartCaused: true });
    transcript.line("host", "arms the restart kick and sends its own kick prompt");
    await a.runtime.armRestartKick(a.scope);
    const kickIdle = await a.idle();
    await a.injectedTurn(async () => a.done(ids[3] ?? ""));
    const n3 = await a.idle();
    await a.injectedTurn(async () => a.done(ids[4] ?? ""));
    const last = await a.idle();
    const episode = n1.action === "inject" ? n1.nudge.episodeId : null;
    const third = n3.action === "inject" ? n3.nudge : null;
    return verdict(
      [
        [n1.action === "inject" && n2.action === "inject", "two nudges before the restart"],
        [
          kickIdle.action === "skip" && kickIdle.reason === "restart-kick-suppressed",
          `restart-kick-suppressed after the restart, got ${reasonOf(kickIdle)}`,
        ],
        [third !== null && third.episodeId === episode, "the third nudge in the same episode"],
        [third !== null && third.autoTurn === 3, `nudge #3 after the restart, got ${reasonOf(n3)}`],
        [
          a.decisions.filter((d) => d.action === "skip" && d.reason === "restart-kick-suppressed")
            .length === 1,
          "the kick skipped exactly once",
        ],
        [
          last.action === "skip" && last.reason === "no-incomplete-todos",
          `no-incomplete-todos at the end, got ${reasonOf(last)}`,
        ],
      ],
      `a second runtime on the same folder continued episode ${episode} at nudge #3; the restart kick skipped one idle`,
    );
  },
};

const blocked: Scenario = {
  name: "blocked",
  title: "a list with only blocked items: the session parks instead of nagging",
  async run({ agent, clock }) {
    const a = agent("blocked");
    await a.userSays("Ship the release to production.");
    const ids = await a.write(["Get sign-off from the release manager", "Rotate the deploy key"]);
    await a.block(ids[0] ?? "", "waiting for the release manager");
    await a.block(ids[1] ?? "", "needs an admin to issue a new key");
    a.say('"Both steps are blocked; I need the sign-off and a new key."');
    await a.stops("stop");
    const decisions = [await a.idle()];
    clock.advance(5 * 60_000);
    decisions.push(await a.idle());
    return verdict(
      [
        [a.nudges.length === 0, `no nudge, got ${a.nudges.length}`],
        [
          decisions.every((d) => d.action === "skip" && d.reason === "only-blocked-todos"),
          `only-blocked-todos, got ${decisions.map(reasonOf).join(", ")}`,
        ],
      ],
      `${decisions.length} idles, 0 nudges: parked (only-blocked-todos) with both reasons on record`,
    );
  },
};

export const SCENARIOS: readonly Scenario[] = [finisher, stuck, interrupted, restart, blocked];
