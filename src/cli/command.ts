import type { Scope, Store } from "../core/types.js";
import type { ContinuationRuntime } from "../runtime/runtime.js";
import type { ScopeJudge } from "../ui/judge.js";
import type { GlobalOptions } from "./global-options.js";
import type { CliIo } from "./io.js";
import type { Style } from "./style.js";

/** One option of a command, described once for both the parser and the help text. */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  description: string;
  /** Placeholder in help: `--limit <n>`. */
  valueName?: string;
}

/** A scope found by name, with its human label. */
export interface ScopeRef {
  scope: Scope;
  label: string;
}

export interface CommandContext {
  /** Command-line positionals after the command name. */
  positionals: string[];
  /** The command's own options (global ones are in `global`). */
  values: Record<string, string | boolean | undefined>;
  global: GlobalOptions;
  io: CliIo;
  style: Style;
  /** Writes one line to stdout. */
  out(line?: string): void;
  /** Writes one line to stderr. */
  err(line?: string): void;
  /** Prints a value as pretty JSON on stdout. */
  json(value: unknown): void;
  /** The store the global options name, opened once and closed when the command ends. */
  store(): Promise<Store>;
  /** A runtime over that store with the chosen preset. */
  runtime(): Promise<ContinuationRuntime>;
  /**
   * Judges each scope by the limits its hook decided with: its project's
   * config file (found from the folder the scope recorded), else `runtime()`'s.
   * Every command that explains or projects limits goes through it.
   */
  judge(): Promise<ScopeJudge>;
  /** Finds a scope by key, label or unique prefix; throws a CliError listing candidates otherwise. */
  findScope(name: string, options?: { allowNew?: boolean }): Promise<ScopeRef>;
  /** Registers cleanup to run after the command (stores, temp files). */
  onClose(fn: () => Promise<void> | void): void;
}

export interface CommandSpec {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Usage lines, without the program name: `show <scope>`. */
  usage: string[];
  /** Paragraphs printed under the usage in `--help`. */
  details?: string[];
  options?: Record<string, OptionSpec>;
  /** Positional arguments accepted. */
  args: { min: number; max: number };
  examples?: string[];
  /**
   * Hands everything after the command name to the command unparsed (in
   * `positionals`), for commands that parse their own flags (mcp, hook).
   * Global options before the command name are still read.
   */
  passthrough?: boolean;
  /** Returns the exit code (default 0). */
  run(ctx: CommandContext): Promise<number | undefined>;
}
