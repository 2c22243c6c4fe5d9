#!/usr/bin/env node
import { runClaudeCodeHook } from "../../cli/commands/hook.js";
import { runInstallCommand } from "../../cli/commands/install-claude-code.js";
import { processIo } from "../../cli/io.js";

/**
 * A stand-alone entry for the Claude Code integration, equivalent to the
 * matching `todo-continuation` commands:
 *   bin.js hook claude-code            (one hook event on stdin)
 *   bin.js install claude-code [...]   bin.js uninstall claude-code [...]
 */
const [command, ...rest] = process.argv.slice(2);
const io = processIo();
if (command === "hook") {
  process.exitCode = await runClaudeCodeHook(rest, io);
} else if (command === "install" || command === "uninstall") {
  process.exitCode = await runInstallCommand(command, rest, io);
} else {
  io.stderr.write("usage: bin.js hook claude-code | install claude-code | uninstall claude-code\n");
  process.exitCode = 2;
}
