import type { CommandSpec } from "../command.js";
import { CliError } from "../errors.js";
import { storeTarget } from "../global-options.js";

export const migrateCommand: CommandSpec = {
  name: "migrate",
  summary: "Create or upgrade the PostgreSQL schema",
  usage: ["migrate --database-url <url>"],
  details: [
    "Brings the schema (--schema, default todo_continuation) to the version this package knows.",
    "Safe while workers run and from several processes at once; a failed step rolls back whole.",
    "Stores also migrate on first use; run this to do it ahead of a deploy.",
  ],
  args: { min: 0, max: 0 },
  examples: [
    "migrate --database-url postgres://app@127.0.0.1:5432/app",
    "migrate   # with TODO_CONTINUATION_DATABASE_URL set",
  ],
  async run(ctx) {
    const target = storeTarget(ctx.global, ctx.io.env);
    if (target.kind !== "postgres") {
      throw new CliError(
        "migrate needs PostgreSQL: pass --database-url or set TODO_CONTINUATION_DATABASE_URL",
        ["The file store needs no migration."],
      );
    }
    const { migrate } = await import("../../store/postgres/index.js");
    const report = await migrate({
      connectionString: target.connectionString,
      ...(ctx.global.schema !== undefined ? { schema: ctx.global.schema } : {}),
    });
    if (ctx.global.json) {
      ctx.json(report);
      return 0;
    }
    if (report.applied.length === 0) {
      ctx.out(`Schema "${report.schema}" is up to date (version ${report.to}).`);
    } else {
      ctx.out(
        `Migrated schema "${report.schema}" from version ${report.from} to ${report.to} (applied ${report.applied.join(", ")}).`,
      );
    }
    return 0;
  },
};
