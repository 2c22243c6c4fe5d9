#!/usr/bin/env node
import { loadHookProcess } from "../hook-kit/loader.js";

/**
 * The command Codex runs for each hook (`install codex` writes it): the
 * lightest entry there is, the bundled hook process and nothing of the CLI.
 * Equivalent to `todo-continuation hook codex [options]`.
 */
process.exitCode = (await (await loadHookProcess("codex"))("codex", process.argv.slice(2))) ?? 2;
