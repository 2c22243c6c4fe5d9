import type { CommandSpec } from "./command.js";
import { clearCommand } from "./commands/clear.js";
import { configCommand } from "./commands/config.js";
import { demoCommand } from "./commands/demo.js";
import { doctorCommand } from "./commands/doctor.js";
import { editCommand } from "./commands/edit.js";
import { hookCommand } from "./commands/hook-command.js";
import { installCommandSpec, uninstallCommandSpec } from "./commands/install-command.js";
import { listCommand } from "./commands/list.js";
import { logCommand } from "./commands/log.js";
import { mcpCommand } from "./commands/mcp-command.js";
import { migrateCommand } from "./commands/migrate.js";
import { notifyCommand } from "./commands/notify.js";
import { pruneCommand } from "./commands/prune.js";
import { showCommand } from "./commands/show.js";
import { snapshotCommand } from "./commands/snapshot.js";
import { resumeCommand, stopCommand } from "./commands/stop.js";
import { trustCommand } from "./commands/trust.js";
import { uiCommand } from "./commands/ui.js";
import { whyCommand } from "./commands/why.js";

/** Every command, in the order `help` lists them. `help` itself is handled by the dispatcher. */
export const COMMANDS: readonly CommandSpec[] = [
  listCommand,
  showCommand,
  whyCommand,
  logCommand,
  editCommand,
  stopCommand,
  resumeCommand,
  clearCommand,
  uiCommand,
  snapshotCommand,
  hookCommand,
  installCommandSpec,
  uninstallCommandSpec,
  doctorCommand,
  configCommand,
  trustCommand,
  notifyCommand,
  pruneCommand,
  mcpCommand,
  migrateCommand,
  demoCommand,
];
