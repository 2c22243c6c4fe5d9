import { dirname } from "node:path";
import { packageVersion } from "../../config/package-version.js";
import { projectSettings } from "../../config/project.js";
import { NOTIFY_EVENTS, type NotifyEvent } from "../../core/notify/events.js";
import { deliverPayload } from "../../notify/deliver.js";
import { samplePayload } from "../../notify/payload.js";
import type { CommandSpec } from "../command.js";
import { CliError, UsageError } from "../errors.js";

export const notifyCommand: CommandSpec = {
  name: "notify",
  summary: "Send a sample notification to this project's notify targets, and say what happened",
  usage: ["notify test [--event <event>]"],
  details: [
    "Reads `notify` from the project's config (as `config` finds it) and sends one sample payload,",
    'marked "test": true, to its command and its webhook, each with the configured time limit; prints',
    "each target's answer. Exits 1 when a target failed. Like the hooks, it sends nothing while the",
    "file is not trusted (`todo-continuation trust`).",
    `Events: ${NOTIFY_EVENTS.join(", ")} (default: the first configured).`,
  ],
  options: {
    event: { type: "string", description: "The sample's event", valueName: "event" },
  },
  args: { min: 1, max: 1 },
  examples: ["notify test", "notify test --event out-of-budget"],
  async run(ctx) {
    if (ctx.positionals[0] !== "test") {
      throw new UsageError(
        `unknown notify action ${JSON.stringify(ctx.positionals[0])}; use \`notify test\``,
        "notify",
      );
    }
    const event = ctx.values.event;
    if (event !== undefined && !(NOTIFY_EVENTS as readonly unknown[]).includes(event)) {
      throw new UsageError(
        `--event must be one of ${NOTIFY_EVENTS.join(", ")}, got ${JSON.stringify(event)}`,
        "notify",
      );
    }
    const env = ctx.io.env;
    const settings = projectSettings(ctx.io.cwd, { env });
    if (settings.problem !== null)
      throw new CliError(`the project config cannot be used: ${settings.problem}`);
    if (settings.file === null) {
      throw new CliError(
        `no todo-continuation.config.json (or package.json "todo-continuation" key) from ${ctx.io.cwd} up to the repository root; nothing to notify`,
      );
    }
    if (settings.notifyNotice != null) throw new CliError(settings.notifyNotice);
    const notify = settings.notify;
    if (notify == null) throw new CliError(`${settings.file} has no "notify"; see docs/notify.md`);
    const chosen = (event as NotifyEvent | undefined) ?? notify.events[0] ?? "done";
    const payload = samplePayload(
      chosen,
      {
        scope: { key: "sample", label: "sample (notify test)" },
        host: "notify-test",
        projectDir: dirname(settings.file),
        version: packageVersion(),
      },
      Date.now(),
    );
    const results = await deliverPayload(payload, notify, env);
    const wanted = notify.events.includes(chosen);
    if (ctx.global.json) {
      ctx.json({ file: settings.file, event: chosen, configured: wanted, results });
    } else {
      ctx.out(`Sent a sample "${chosen}" notification (from ${settings.file}):`);
      for (const r of results) {
        const where =
          r.target === "webhook"
            ? `webhook ${notify.webhook}`
            : `command ${JSON.stringify(notify.command)}`;
        const status = r.target === "webhook" ? `HTTP ${r.status}` : `exit ${r.status}`;
        ctx.out(
          r.ok
            ? `  ${ctx.style.green("delivered")}  ${where} (${status}, ${r.ms} ms)`
            : `  ${ctx.style.red("FAILED")}     ${where}: ${r.error} (${r.ms} ms)`,
        );
      }
      if (!wanted) {
        ctx.out(
          `  Note: "${chosen}" is not among notify.events (${notify.events.join(", ")}), so real runs do not send it.`,
        );
      }
    }
    return results.every((r) => r.ok) ? 0 : 1;
  },
};
