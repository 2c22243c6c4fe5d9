#!/usr/bin/env node
import { loadHookProcess } from "../hook-kit/loader.js";

/**
 * The command Gemini CLI runs for each hook (`install gemini` writes it): the
 * lightest entry there is, the bundled hook process and nothing of the CLI.
 * Equivalent to `todo-continuation hook gemini [options]`.
 */
process.exitCode = (await (await loadHookProcess("gemini"))("gemini", process.argv.slice(2))) ?? 2;
