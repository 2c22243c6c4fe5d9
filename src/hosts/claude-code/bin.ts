#!/usr/bin/env node
import { loadHookProcess } from "../hook-loader.js";

/**
 * The stand-alone entry of the Claude Code integration, and the command its
 * installer writes into Claude Code's settings:
 *   bin.js hook claude-code            (one hook event on stdin)
 *   bin.js install claude-code [...]   bin.js uninstall claude-code [...]
 * A hook runs once per event, so this file loads only the hook's own modules;
 * the installer (CLI code) is loaded only when asked for.
 */
const [command, ...rest] = process.argv.slice(2);
if (command === "hook") {
  const [host, ...args] = rest;
  const run = await loadHookProcess(host);
  process.exitCode = (host === "claude-code" ? await run(host, args) : null) ?? usage();
} else if (command === "install" || command === "uninstall") {
  const [{ runInstallCommand }, { processIo }] = await Promise.all([
    import("../../cli/commands/install-claude-code.js"),
    import("../../cli/io.js"),
  ]);
  process.exitCode = await runInstallCommand(command, rest, processIo());
} else {
  process.exitCode = usage();
}

function usage(): number {
  process.stderr.write(
    "usage: bin.js hook claude-code | install claude-code | uninstall claude-code\n",
  );
  return 2;
}
