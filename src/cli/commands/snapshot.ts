import { DEFAULT_SNAPSHOT_MESSAGE, snapshotTodos } from "../../store/file/git.js";
import { resolveStoreRoot } from "../../store/root.js";
import type { CommandSpec } from "../command.js";
import { CliError, UsageError } from "../errors.js";
import { storeTarget } from "../global-options.js";

export const snapshotCommand: CommandSpec = {
  name: "snapshot",
  summary: "Commit the store's todo folder to git, even where it is git-ignored",
  usage: ["snapshot"],
  details: [
    "Force-adds <store>/todo (lock and temp files excluded) and commits only that folder, leaving",
    "anything else staged as it was. Outside a git work tree the store folder becomes its own",
    "repository. Makes no commit when nothing changed since the last snapshot. File store only.",
  ],
  options: {
    message: {
      type: "string",
      short: "m",
      valueName: "text",
      description: `Commit message (default: "${DEFAULT_SNAPSHOT_MESSAGE}").`,
    },
  },
  args: { min: 0, max: 0 },
  examples: ["snapshot", "--dir ./.agent snapshot -m 'before the refactor'"],
  async run(ctx) {
    const target = storeTarget(ctx.global, ctx.io.env);
    if (target.kind !== "file") {
      throw new CliError("snapshot commits the file store's folder, but PostgreSQL is selected", [
        "Back PostgreSQL up with pg_dump instead, or pass --dir.",
      ]);
    }
    const message = ctx.values.message;
    if (typeof message === "string" && message.trim() === "") {
      throw new UsageError("--message: the commit message must not be empty", "snapshot");
    }
    const result = await snapshotTodos(
      resolveStoreRoot(target.dir),
      typeof message === "string" ? message : undefined,
    );
    if (ctx.global.json) {
      ctx.json(result);
      return 0;
    }
    if (result.initialized) ctx.out(`Created a git repository in ${result.repository}.`);
    if (result.commit === null) {
      ctx.out(`Nothing changed in ${result.path} since the last snapshot.`);
    } else {
      ctx.out(`Committed ${result.path} in ${result.repository} as ${result.commit.slice(0, 12)}.`);
    }
    return 0;
  },
};
