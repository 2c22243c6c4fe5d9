import { resolve } from "node:path";
import { DEFAULT_PRUNE_STATES } from "../../core/notify/stale.js";
import { describeScope } from "../../core/scope/index.js";
import { removeSideEntries, staleSideEntries } from "../../hosts/hook-kit/side-files.js";
import { parseDuration, parseStates } from "../../store/prune/duration.js";
import { applyPrune, isFileStore, type PruneAction, planPrune } from "../../store/prune/prune.js";
import { restoreArchive } from "../../store/prune/restore.js";
import type { CommandSpec } from "../command.js";
import { CliError, UsageError } from "../errors.js";

function age(ms: number): string {
  const days = ms / 86_400_000;
  if (days >= 1) return `${Math.floor(days)}d`;
  const hours = ms / 3_600_000;
  return hours >= 1 ? `${Math.floor(hours)}h` : `${Math.max(0, Math.floor(ms / 60_000))}m`;
}

export const pruneCommand: CommandSpec = {
  name: "prune",
  summary: "Archive or delete scopes nothing happened in for a while (a dry run unless --yes)",
  usage: [
    "prune --older-than <duration> [--state idle,done,stopped] [--archive <dir> | --delete] [--yes]",
    "prune --restore <dir>",
  ],
  details: [
    "Finds the scopes whose last activity (decision, turn, user turn) is older than the duration",
    "(30d, 12h, 90m, 45s, 2w) and whose state is one of --state (idle, done, stopped, parked,",
    "out-of-budget; default idle,done,stopped). Without --yes it only prints the count and the scopes:",
    "nothing is touched. --archive moves a scope's files (file store) or exports its rows to a JSON",
    "file and deletes them in one transaction (PostgreSQL); --restore puts an archive back. --delete",
    "removes them. A scope in the middle of an episode, or whose lock is held, is never pruned.",
    "With a file store it also removes the hook hosts' claim folders and nudge notes (beside the",
    "store: <host>-events/, <host>-nudges/) of sessions nothing touched for as long.",
  ],
  options: {
    "older-than": {
      type: "string",
      description: "Minimum age of the last activity",
      valueName: "duration",
    },
    state: { type: "string", description: "States to prune (comma list)", valueName: "states" },
    archive: { type: "string", description: "Move the scopes into this folder", valueName: "dir" },
    delete: { type: "boolean", description: "Delete the scopes" },
    yes: { type: "boolean", description: "Do it (without: a dry run)" },
    restore: {
      type: "string",
      description: "Put back an archive made by --archive",
      valueName: "dir",
    },
  },
  args: { min: 0, max: 0 },
  examples: [
    "prune --older-than 30d",
    "prune --older-than 30d --state done,stopped --archive ~/tc-archive --yes",
    "prune --restore ~/tc-archive",
  ],
  async run(ctx) {
    const v = ctx.values;
    if (typeof v.restore === "string") {
      const results = await restoreArchive(await ctx.store(), resolve(ctx.io.cwd, v.restore));
      if (ctx.global.json) ctx.json({ restored: results });
      else {
        const back = results.filter((r) => r.restored).length;
        ctx.out(`Restored ${back} of ${results.length} archived item(s) from ${v.restore}.`);
        for (const r of results) if (!r.restored) ctx.out(`  not restored: ${r.item} (${r.why})`);
      }
      return 0;
    }
    if (typeof v["older-than"] !== "string") {
      throw new UsageError("prune needs --older-than <duration>, e.g. --older-than 30d", "prune");
    }
    if (v.archive !== undefined && v.delete === true) {
      throw new UsageError("prune takes --archive <dir> or --delete, not both", "prune");
    }
    let olderThanMs: number;
    let states: ReturnType<typeof parseStates>;
    try {
      olderThanMs = parseDuration(v["older-than"]);
      states = typeof v.state === "string" ? parseStates(v.state) : [...DEFAULT_PRUNE_STATES];
    } catch (error) {
      throw new UsageError((error as Error).message, "prune");
    }
    const store = await ctx.store();
    const now = Date.now();
    const criteria = { now, olderThanMs, states };
    const plan = await planPrune(store, criteria);
    // The hook hosts' claims and nudge notes of sessions nothing touched for as long.
    const side = isFileStore(store) ? staleSideEntries(store.root, now - olderThanMs) : [];
    const action: PruneAction | null =
      typeof v.archive === "string"
        ? { archive: resolve(ctx.io.cwd, v.archive) }
        : v.delete === true
          ? { delete: true }
          : null;
    const verb = action === null ? "would touch" : "archive" in action ? "to archive" : "to delete";
    if (action === null || v.yes !== true) {
      if (ctx.global.json) {
        ctx.json({
          dryRun: true,
          count: plan.candidates.length,
          scopes: plan.candidates.map((c) => ({
            key: c.scope.key,
            state: c.state,
            lastActivityAt: c.lastActivityAt,
          })),
          openEpisodes: plan.openEpisodes.map((s) => s.key),
          unreadable: plan.unreadable.map((s) => s.key),
          sideFiles: side,
        });
        return 0;
      }
      ctx.out(
        `${plan.candidates.length} scope(s) ${verb}: older than ${v["older-than"]}, state ${states.join(", ")}. Dry run: nothing was changed.`,
      );
      for (const c of plan.candidates) {
        ctx.out(
          `  ${describeScope(c.scope)}  ${ctx.style.dim(c.scope.key)}  ${c.state}, ${age(now - c.lastActivityAt)} ago`,
        );
      }
      if (plan.openEpisodes.length > 0)
        ctx.out(`Spared: ${plan.openEpisodes.length} scope(s) in an open episode.`);
      if (plan.unreadable.length > 0)
        ctx.out(`Spared: ${plan.unreadable.length} unreadable scope(s) (see \`doctor\`).`);
      if (side.length > 0)
        ctx.out(`And ${side.length} hook claim folder(s) and nudge note(s) of sessions as old.`);
      if (plan.candidates.length > 0 || side.length > 0) {
        ctx.out(
          action === null
            ? "Add --archive <dir> --yes to move them aside, or --delete --yes to remove them."
            : "Add --yes to do it.",
        );
      }
      return 0;
    }
    const results = await applyPrune(store, plan, action, criteria);
    // Removed whether scopes are archived or deleted: they name no list, only past events.
    const sideDone = removeSideEntries(side);
    if (ctx.global.json) {
      ctx.json({
        dryRun: false,
        results: results.map((r) => ({ key: r.scope.key, ...r, scope: undefined })),
        sideFilesRemoved: sideDone.removed,
      });
    } else {
      const count = (o: string) => results.filter((r) => r.outcome === o).length;
      const done =
        "archive" in action
          ? `archived ${count("archived")} into ${action.archive}`
          : `deleted ${count("deleted")}`;
      ctx.out(`Pruned: ${done} of ${plan.candidates.length} scope(s).`);
      if (side.length > 0)
        ctx.out(`Removed ${sideDone.removed} hook claim folder(s) and nudge note(s).`);
      for (const failure of sideDone.failed) ctx.err(`  failed: ${failure}`);
      for (const r of results) {
        if (r.outcome === "locked") ctx.out(`  left: ${r.scope.key} (its lock is held)`);
        else if (r.outcome === "kept") ctx.out(`  left: ${r.scope.key} (active again)`);
        else if (r.outcome === "failed") ctx.err(`  failed: ${r.scope.key}: ${r.error}`);
      }
    }
    if (results.some((r) => r.outcome === "failed") || sideDone.failed.length > 0)
      throw new CliError("some scopes or hook side files could not be pruned (see above)");
    return 0;
  },
};
