import { parseArgs } from "node:util";
import { checkTargets, type SimRow, simulate } from "./simulate.js";

const USAGE = `Usage: npm run sim -- [--seed N] [--runs N] [--json]

Simulates agent behaviours against continuation policies on the real engine
and store, deterministically for a given seed, and prints one row per pair.`;

function table(rows: SimRow[]): string {
  const header = [
    "behaviour",
    "policy",
    "completion",
    "nudges",
    "wasted",
    "longest unproductive",
    "nudge tokens",
    "violations",
    "false finishes missed",
  ];
  const body = rows.map((r) => [
    r.behaviour,
    r.policy,
    r.completable === 0 ? "n/a" : `${Math.round(r.completion * 100)}%`,
    String(r.nudges),
    String(r.wastedNudges),
    String(r.longestUnproductiveRun),
    String(r.nudgeTokens),
    String(r.violations),
    r.falseFinishes === 0 ? "-" : `${r.missedFalseFinishes} of ${r.falseFinishes}`,
  ]);
  const lines = [header, header.map(() => "---"), ...body].map(
    (cells) => `| ${cells.join(" | ")} |`,
  );
  return lines.join("\n");
}

/** One row per behaviour, one column per policy: completion, nudges per run, violations. */
function pivot(rows: SimRow[]): string {
  const policies = [...new Set(rows.map((r) => r.policy))];
  const behaviours = [...new Set(rows.map((r) => r.behaviour))];
  const cell = (r: SimRow | undefined) =>
    r === undefined
      ? ""
      : `${r.completable === 0 ? "n/a" : `${Math.round(r.completion * 100)}%`} · ${r.nudges} · ${r.violations}`;
  const lines = [
    `| behaviour | ${policies.join(" | ")} |`,
    `| --- | ${policies.map(() => "---").join(" | ")} |`,
    ...behaviours.map(
      (b) =>
        `| ${b} | ${policies.map((p) => cell(rows.find((r) => r.behaviour === b && r.policy === p))).join(" | ")} |`,
    ),
  ];
  return lines.join("\n");
}

async function main(): Promise<void> {
  let values: { seed?: string; runs?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        seed: { type: "string" },
        runs: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const seed = Number(values.seed ?? 42);
  const runs = Number(values.runs ?? 20);
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(runs) || runs < 1) {
    process.stderr.write(`--seed and --runs take whole numbers (runs >= 1)\n${USAGE}\n`);
    process.exit(2);
  }
  const rows = await simulate({ seed, runs });
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify(
        rows.map(({ maxWastedNudges: _m, violationKinds: _v, completable: _c, ...row }) => row),
        null,
        2,
      )}\n`,
    );
    return;
  }
  process.stdout.write(
    `Policy simulation: seed ${seed}, ${runs} runs per pair (npm run sim -- --seed ${seed} --runs ${runs})\n\n`,
  );
  process.stdout.write(`${table(rows)}\n\n`);
  process.stdout.write("Summary: completion · nudges per run · violations\n\n");
  process.stdout.write(`${pivot(rows)}\n\n`);
  const finisher = rows.filter((r) => r.behaviour === "false-finisher");
  if (finisher.length > 0) {
    process.stdout.write(
      "False finisher (marks every item done having done one or two; the project's check fails until the work is done):\n\n",
    );
    process.stdout.write(
      `${finisher
        .map(
          (r) =>
            `- ${r.policy}: ${Math.round(r.completion * 100)}% of the work really done, ${r.missedFalseFinishes} of ${r.falseFinishes} false finishes missed, ${r.nudges} nudges per run, ${r.violations} violations`,
        )
        .join("\n")}\n\n`,
    );
  }
  const kinds = [...new Set(rows.flatMap((r) => r.violationKinds.map((k) => `${r.policy}: ${k}`)))];
  if (kinds.length > 0)
    process.stdout.write(`Violations seen:\n${kinds.map((k) => `- ${k}`).join("\n")}\n\n`);
  const checks = checkTargets(rows);
  process.stdout.write("Targets for the default policy:\n");
  for (const c of checks)
    process.stdout.write(`${c.ok ? "ok  " : "MISS"} ${c.name} (${c.detail})\n`);
  if (checks.some((c) => !c.ok)) process.exitCode = 1;
}

main().catch((error) => {
  process.stderr.write(`sim failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
