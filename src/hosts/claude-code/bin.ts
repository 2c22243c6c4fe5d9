#!/usr/bin/env node
import { loadHookProcess } from "../hook-kit/loader.js";

/**
 * The stand-alone entry of the Claude Code integration, and the command its
 * installer writes into Claude Code's settings:
 *   bin.js hook claude-code            (one hook event on stdin)
 *   bin.js install claude-code [...]   bin.js uninstall claude-code [...]
 * A hook runs once per event, so this file loads only the hook's own modules;
 * the installer is loaded only when asked for.
 */
const [command, ...rest] = process.argv.slice(2);
if (command === "hook") {
  const [host, ...args] = rest;
  const run = await loadHookProcess(host);
  process.exitCode = (host === "claude-code" ? await run(host, args) : null) ?? usage();
} else if ((command === "install" || command === "uninstall") && rest[0] === "claude-code") {
  const [{ runInstaller }, { installerRow }] = await Promise.all([
    import("../installer/run.js"),
    import("../installer/table.js"),
  ]);
  const io = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  };
  process.exitCode = await runInstaller(installerRow("claude-code")!, command, rest, io);
} else {
  process.exitCode = usage();
}

function usage(): number {
  process.stderr.write(
    "usage: bin.js hook claude-code | install claude-code | uninstall claude-code\n",
  );
  return 2;
}
