#!/usr/bin/env node
import { runCodexHook } from "./hook.js";

/**
 * The command Codex runs for each hook (`install codex` writes it): the
 * lightest entry there is, loading the hook and nothing of the CLI.
 * Equivalent to `todo-continuation hook codex [options]`.
 */
process.exitCode = await runCodexHook(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
});
