import type { ProjectSettings } from "../../config/project.js";
import { ProjectConfigWatcher } from "../../config/watch.js";
import { createToolset, isDialectName } from "../../core/dialects/index.js";
import { PRESET_NAMES } from "../../core/engine/presets.js";
import { quoteInput } from "../../core/quote.js";
import { resolveScope } from "../../core/scope/index.js";
import type {
  DialectName,
  HostSignals,
  Limits,
  PresetName,
  Store,
  TodoTool,
} from "../../core/types.js";
import { createHostNotifier } from "../../notify/host-notifier.js";
import { ContinuationRuntime, type RuntimeOptions } from "../../runtime/index.js";
import { createFileStore } from "../../store/file/file-store.js";
import { resolveStoreRoot } from "../../store/root.js";
import { PiContinuation } from "./continuation.js";
import { actingCopy } from "./copies.js";
import { promptSnippet } from "./messages.js";
import type { PiContext, PiExtensionApi, PiToolDefinition } from "./pi-api.js";
import { isSubagent, markParent } from "./subagent.js";

/** Environment variables the default export reads. */
export const DIALECT_ENV = "TODO_CONTINUATION_DIALECT";
export const PRESET_ENV = "TODO_CONTINUATION_PRESET";

export interface PiExtensionOptions {
  /** Where lists and state live; default the file store under `dir`. */
  store?: Store;
  /** File store folder; default `$TODO_CONTINUATION_DIR`, else the standard folder. */
  dir?: string;
  /**
   * Limits and nudge style; default `$TODO_CONTINUATION_PRESET`, else the
   * project config's preset, else "default".
   */
  preset?: PresetName;
  /** Tool dialect; default `$TODO_CONTINUATION_DIALECT`, else "pi" (todo_write with ops). */
  dialect?: DialectName;
  /** Overrides on top of the preset's limits; each wins over the project config's. */
  limits?: Partial<Limits>;
  /** `advise`: decisions are logged, nothing is queued (the project file's `mode` wins). */
  mode?: RuntimeOptions["mode"];
  /**
   * Read the project config (`todo-continuation.config.json`) for pi's
   * folder: its preset and limits, and its `verify` once trusted. Re-read
   * when it or the trust record changes. Default true.
   */
  projectConfig?: boolean;
  /** The project folder; default the folder pi works in (`ctx.cwd`). */
  cwd?: string;
  /** Force subagent mode (no tools, no continuation); default detected from the environment. */
  subagent?: boolean;
  /** Facts only you know at decision time (background work, a pending question). Must not block. */
  signals?: () => HostSignals;
  /** Called with every persisted decision. */
  onDecision?: RuntimeOptions["onDecision"];
  /** Clock, for tests. */
  now?: () => number;
  /** Environment to read and mark; default `process.env`. */
  env?: Record<string, string | undefined>;
}

function envChoice<T extends string>(
  env: Record<string, string | undefined>,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return undefined;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw new Error(`${name} must be one of ${allowed.join(", ")}; got ${quoteInput(String(raw))}`);
}

function toPiTool(tool: TodoTool, continuation: PiContinuation): PiToolDefinition {
  return {
    name: tool.name,
    label: tool.name,
    description: tool.description,
    promptSnippet: promptSnippet(tool.description),
    parameters: tool.inputSchema,
    async execute(toolCallId, params) {
      const result = await continuation.callTool(tool, params, toolCallId);
      // pi marks a thrown result as an error; the model reads the dialect's message.
      if (result.isError) throw new Error(result.text);
      return { content: [{ type: "text", text: result.text }], details: result.details };
    },
  };
}

/**
 * Builds the pi extension. It registers the dialect's todo tools, records
 * real user turns and every assistant outcome with its usage, and continues
 * the run while the engine says inject (see `PiContinuation` for how it does
 * so on pi 0.73 without ever delivering an unpersisted decision). Subagents
 * get no tools and never continue: their parent owns the list.
 */
export function createPiExtension(options: PiExtensionOptions = {}): (pi: PiExtensionApi) => void {
  return (pi) => {
    const env = options.env ?? process.env;
    const dialect =
      options.dialect ?? envChoice(env, DIALECT_ENV, ["typeclaw", "parley", "pi"]) ?? "pi";
    if (!isDialectName(dialect))
      throw new Error(`dialect must be typeclaw, parley or pi; got ${dialect}`);
    // Given explicitly (option or environment): wins over the project config's.
    const preset = options.preset ?? envChoice(env, PRESET_ENV, PRESET_NAMES);
    const subagent = options.subagent ?? isSubagent(env);
    // Another copy of this package in the same load acts (see copies.ts): registering the tools
    // again would make pi refuse to start. (After what can throw: a copy that fails to load
    // must not have answered for its load.)
    const copy = actingCopy(pi);
    if (copy === null) return;
    const ownStore = options.store === undefined;
    const store =
      options.store ?? createFileStore(options.dir !== undefined ? { root: options.dir } : {});
    const runtime = new ContinuationRuntime({
      store,
      dialect,
      ...(preset ? { preset } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.mode ? { mode: options.mode } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.onDecision ? { onDecision: options.onDecision } : {}),
      ...(options.cwd ? { projectDir: options.cwd } : {}),
    });
    let lastContext: PiContext | null = null;
    const show = (text: string, type: "warning" | "error") => {
      const message = `todo-continuation: ${text}`;
      if (lastContext?.hasUI) lastContext.ui.notify(message, type);
      else process.stderr.write(`${message}\n`);
    };
    const report = (error: unknown) =>
      show(error instanceof Error ? error.message : String(error), "warning");
    /** Problems and notices already shown: once each. */
    const told = new Set<string>();
    const tell = (text: string, type: "warning" | "error") => {
      if (told.has(text)) return;
      told.add(text);
      show(text, type);
    };
    const continuation = new PiContinuation({
      runtime,
      queueFollowUp: (message) => pi.sendMessage(message, { deliverAs: "followUp" }),
      ...(options.signals ? { signals: options.signals } : {}),
      onError: report,
    });
    const storeRoot = (store as { root?: unknown }).root;
    const cacheDir = typeof storeRoot === "string" ? storeRoot : resolveStoreRoot(options.dir);
    let watcher: ProjectConfigWatcher | null = null;
    /**
     * Reads the project config again when a file it comes from changed (a
     * few stats otherwise) and applies it. A problem stops every nudge until
     * fixed; it and an untrusted check are shown once. Never throws.
     */
    const refreshProject = async () => {
      if (watcher === null) return;
      let file: ProjectSettings;
      try {
        const read = await watcher.read();
        if (!read.changed) return;
        file = read.settings;
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        file = {
          file: null,
          verify: null,
          trust: null,
          problem: `the project config could not be read: ${text}`,
          notice: null,
        };
      }
      let problem = file.problem;
      if (problem === null) {
        const limits = { ...(file.limits ?? {}), ...(options.limits ?? {}) };
        try {
          runtime.reconfigure({
            ...((preset ?? file.preset) !== undefined ? { preset: preset ?? file.preset } : {}),
            limits,
            verify:
              file.verify === null ? null : { settings: file.verify, cwd: watcher.cwd, cacheDir },
            projectDir: watcher.cwd,
            ...((file.mode ?? options.mode) !== undefined
              ? { mode: file.mode ?? options.mode }
              : {}),
            ...(file.prices !== undefined ? { prices: file.prices } : {}),
            notify: createHostNotifier({
              settings: file.notify,
              host: "pi",
              projectDir: watcher.cwd,
              storeRoot: cacheDir,
              env,
            }),
          });
        } catch (error) {
          const text = error instanceof Error ? error.message : String(error);
          problem = `${file.file ?? "the project config"} with the extension's options: ${text}`;
        }
      }
      continuation.setConfigProblem(problem);
      if (problem !== null)
        tell(`project config not used, no nudges until it is fixed: ${problem}`, "error");
      else {
        if (file.notice !== null) tell(file.notice, "warning");
        if (file.notifyNotice != null) tell(file.notifyNotice, "warning");
      }
    };
    const tools = subagent ? [] : createToolset({ dialect });
    const toolNames = new Set(tools.map((t) => t.name));
    for (const tool of tools) pi.registerTool(toPiTool(tool, continuation));

    pi.on("session_start", async (_event, ctx) => {
      lastContext = ctx;
      const scope = subagent
        ? null
        : resolveScope({
            kind: "session",
            host: "pi",
            sessionId: ctx.sessionManager.getSessionId(),
          });
      if (scope) markParent(env, scope.key);
      // Subagents never nudge nor check: they read no project config.
      if (scope && options.projectConfig !== false) {
        watcher = new ProjectConfigWatcher(options.cwd ?? ctx.cwd ?? process.cwd(), { env });
      }
      await refreshProject();
      await continuation.start(scope);
    });
    pi.on("input", async (event, ctx) => {
      lastContext = ctx;
      await refreshProject();
      await continuation.userInput(event.source);
    });
    pi.on("context", async (event, ctx) => {
      // Before every model call: a config edited or trusted meanwhile applies to this turn's stop.
      await refreshProject();
      return continuation.context(event.messages, () => ctx.abort());
    });
    // These two must not await: pi checks its follow-up queue right after turn_end.
    // A message_end handler may return a replacement (pi 0.73 puts it in place).
    pi.on("message_end", (event) => {
      const replacement = continuation.messageEnd(event.message);
      return replacement ? { message: replacement } : undefined;
    });
    pi.on("turn_end", (event) => {
      continuation.turnEnd(event.message);
    });
    // pi 0.73 and 1.x emit agent_end before deciding on a retry; 1.x then settles after it.
    pi.on("agent_end", () => {
      continuation.agentEnd();
    });
    // pi 1.x awaits this before the run settles; its `on` returns an unsubscribe function (0.73's returns nothing).
    const settles = pi.on("agent_before_settle", async () => {
      continuation.providerErrorFinal();
      // A nudge for a failing check is queued as a follow-up: pi goes on with it.
      return (await continuation.beforeSettle()) ? { continue: true } : undefined;
    });
    continuation.setSettles(typeof settles === "function");
    pi.on("tool_execution_end", (event) => {
      if (toolNames.has(event.toolName)) {
        continuation.toolEnded(event.toolCallId, event.toolName, event.isError);
      }
    });
    pi.on("session_shutdown", async () => {
      // A reload loads the extensions again: the new copy of this one must act.
      copy.leave();
      continuation.providerErrorFinal();
      await continuation.settle();
      if (ownStore) await store.close();
    });
  };
}
