#!/usr/bin/env node
import { runGeminiHook } from "./hook.js";

/**
 * The command Gemini CLI runs for each hook (`install gemini` writes it): the
 * lightest entry there is, loading the hook and nothing of the CLI.
 * Equivalent to `todo-continuation hook gemini [options]`.
 */
process.exitCode = await runGeminiHook(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
});
