import { STORE_ROOT_ENV } from "../../store/root.js";
import { readTranscriptTail } from "../claude-code/transcript.js";
import { type HookMainSpec, NO_REPLY, runHookMain } from "../hook-kit/main.js";
import {
  type HookArgs,
  type HookIo,
  hookOptionsUsage,
  parseHookArgs,
} from "../hook-kit/process.js";
import { GOAL_EVENT_MARKER, lastLineWith } from "./goal.js";
import { failOpen, handleCodexHookEvent, needsStore } from "./handler.js";
import { type CodexHookEvent, type KnownCodexHookEvent, parseCodexHookInput } from "./payload.js";
import { rolloutMemoStore } from "./rollout-memo.js";
import { codexProjectDir, codexStoreRoot } from "./store-location.js";

/**
 * The hook process: one Codex hook event on stdin, Codex's answer on stdout.
 * It loads only what a hook needs (the engine, the file store; PostgreSQL only
 * when asked for) and never fails closed: any error of its own allows the
 * stop, is explained in one stderr line, and exits 0.
 */

/** Enough of the rollout's end to hold its latest token count. */
const ROLLOUT_TAIL_BYTES = 1024 * 1024;

export const CODEX_HOOK_USAGE = `Usage: todo-continuation hook codex [options] < event.json

Reads one Codex CLI hook event as JSON on stdin and answers as Codex expects:
a Stop that should continue prints {"decision":"block","reason":...}.
Always exits 0; errors allow the stop and are explained on stderr.

${hookOptionsUsage("<project>/.codex/todo-continuation")}`;

/** Where the hook reads and writes (every hook process shares it); the CLI's io fits. */
export type CodexHookIo = HookIo;

export type CodexHookArgs = HookArgs;

/** Reads the hook's options; `argv` may start with the host name (`codex`). */
export function parseCodexHookArgs(argv: readonly string[]): CodexHookArgs {
  return parseHookArgs("codex", argv);
}

/** Codex's hook process, described for the kit. */
export const CODEX_HOOK: HookMainSpec<CodexHookEvent> = {
  host: "codex",
  usage: CODEX_HOOK_USAGE,
  parse: parseCodexHookInput,
  failure: failOpen,
  storeless: (event) => (needsStore(event) ? null : NO_REPLY),
  cwdOf: (event) => (event.kind === "other" ? null : event.cwd),
  storeRoot: ({ dir, env, cwd }) => codexStoreRoot({ dir, env, cwd }),
  projectDir: ({ cwd }) => codexProjectDir(cwd),
  // Only the default per-project folder ignores itself; a named one is the user's.
  ignoresStore: ({ dir, env }) => dir === undefined && !env[STORE_ROOT_ENV]?.trim(),
  // Codex runs ours from its user and its project config at once, with one payload.
  eventOf: (event) =>
    event.kind === "other" ? null : { sessionId: event.sessionId, name: event.kind },
  handle: (event, context) =>
    handleCodexHookEvent(event as KnownCodexHookEvent, {
      ...context,
      readRollout: (path) => readTranscriptTail(path, ROLLOUT_TAIL_BYTES),
      readGoalLine: (path) => lastLineWith(path, GOAL_EVENT_MARKER, rolloutMemoStore(context.env)),
    }),
};

/** `todo-continuation hook codex`: resolves to the exit code, which is always 0. */
export function runCodexHook(argv: readonly string[], io: CodexHookIo): Promise<number> {
  return runHookMain(CODEX_HOOK, argv, io);
}
