import { PRESET_NAMES } from "../core/engine/presets.js";
import { quoteInput } from "../core/quote.js";
import { describeScope, parseScopeKey } from "../core/scope/index.js";
import type { PresetName, Scope, Store } from "../core/types.js";
import type { ContinuationRuntime } from "../runtime/runtime.js";
import { resolveSchema } from "../store/postgres/options.js";
import type { ScopeJudge, ScopeJudgeOptions } from "../ui/judge.js";
import type { CommandContext, ScopeRef } from "./command.js";
import { CliError, UsageError } from "./errors.js";
import { formatTable } from "./format/table.js";
import type { GlobalOptions } from "./global-options.js";
import type { CliIo } from "./io.js";
import { matchScope, type ScopeCandidate } from "./scope-match.js";
import { scopeCandidate } from "./scope-names.js";
import { openStore, storeDescription } from "./store.js";
import { colorEnabled, createStyle } from "./style.js";

export interface ContextInput {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
  global: GlobalOptions;
  io: CliIo;
}

/** The preset the global option names, checked before any store is opened. */
export function presetOption(global: GlobalOptions): PresetName {
  const name = global.preset ?? "default";
  if (!(PRESET_NAMES as string[]).includes(name)) {
    throw new UsageError(
      `--preset: unknown preset ${quoteInput(name)}; valid presets: ${PRESET_NAMES.join(", ")}`,
    );
  }
  return name as PresetName;
}

/**
 * How commands find each scope's project config: from the CLI's environment,
 * with only a --preset actually given overriding the files' presets (their
 * limits still apply), as a hook's own --preset does.
 */
export function judgeOptions(
  global: GlobalOptions,
  env: Record<string, string | undefined>,
): ScopeJudgeOptions {
  return { env, ...(global.preset !== undefined ? { presetFlag: presetOption(global) } : {}) };
}

/** Checks --schema before anything connects: it becomes part of every SQL statement. */
export function checkSchemaOption(global: GlobalOptions): void {
  if (global.schema === undefined) return;
  try {
    resolveSchema(global.schema);
  } catch (error) {
    throw new UsageError(`--${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Everything a command needs, created lazily: a command that only prints help
 * never opens a store. `close` runs the registered cleanups in reverse order.
 */
export function createContext(input: ContextInput): CommandContext & { close(): Promise<void> } {
  const { io, global } = input;
  const preset = presetOption(global);
  checkSchemaOption(global);
  const style = createStyle(colorEnabled(io.env, io.stdout.isTTY === true));
  const cleanups: (() => Promise<void> | void)[] = [];
  let store: Promise<Store> | null = null;
  let runtime: ContinuationRuntime | null = null;
  let judge: ScopeJudge | null = null;

  const ctx: CommandContext & { close(): Promise<void> } = {
    positionals: input.positionals,
    values: input.values,
    global,
    io,
    style,
    out: (line = "") => void io.stdout.write(`${line}\n`),
    err: (line = "") => void io.stderr.write(`${line}\n`),
    json: (value) => void io.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    store() {
      if (store === null) {
        store = openStore(global, io.env);
        const opened = store;
        cleanups.push(async () => {
          // A store that failed to open was reported already; there is nothing to close.
          const ready = await opened.catch(() => null);
          await ready?.close();
        });
      }
      return store;
    },
    async runtime() {
      if (runtime === null) {
        const { ContinuationRuntime } = await import("../runtime/runtime.js");
        runtime = new ContinuationRuntime({ store: await ctx.store(), preset });
      }
      return runtime;
    },
    async judge() {
      if (judge === null) {
        const { ScopeJudge } = await import("../ui/judge.js");
        judge = new ScopeJudge(await ctx.runtime(), judgeOptions(global, io.env));
      }
      return judge;
    },
    async findScope(name, options = {}): Promise<ScopeRef> {
      const scopes = await (await ctx.store()).listScopes();
      const match = matchScope(name, scopes.map(scopeCandidate));
      if (match.kind === "found") {
        const scope = match.candidate.value;
        return { scope, label: describeScope(scope) };
      }
      const where = storeDescription(global, io.env);
      const rows = (list: ScopeCandidate<Scope>[]) =>
        formatTable(
          [{ header: "  SCOPE" }, { header: "LABEL" }],
          list.map((c) => [`  ${c.key}`, c.names[0] ?? ""]),
        ).slice(1);
      if (match.kind === "ambiguous") {
        throw new CliError(
          `"${name}" matches ${match.candidates.length} scopes in ${where}; type more of the name:`,
          rows(match.candidates),
        );
      }
      if (options.allowNew) {
        const fresh = parseScopeKey(name);
        if (fresh !== null) return { scope: fresh, label: describeScope(fresh) };
      }
      const near = rows(match.near);
      throw new CliError(
        `no scope named "${name}" in ${where}`,
        near.length > 0
          ? ["Did you mean:", ...near]
          : scopes.length === 0
            ? ["The store holds no scopes yet."]
            : ["Run `todo-continuation list` to see every scope."],
      );
    },
    onClose(fn) {
      cleanups.push(fn);
    },
    async close() {
      for (const fn of cleanups.reverse()) await fn();
    },
  };
  return ctx;
}
