import type { PresetName, Store } from "../../core/types.js";
import { STORE_ROOT_ENV } from "../../store/root.js";
import { readTranscriptTail } from "../claude-code/transcript.js";
import {
  type HookArgs,
  type HookIo,
  hookOptionsUsage,
  openHookStore,
  parseHookArgs,
  readHookInput,
  writeHookReply,
} from "../hook-kit/process.js";
import { lazyHookProject } from "../hook-kit/project.js";
import { GOAL_EVENT_MARKER, lastLineWith } from "./goal.js";
import { type CodexHookResponse, failOpen, handleCodexHookEvent, needsStore } from "./handler.js";
import { parseCodexHookInput } from "./payload.js";
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

/** `todo-continuation hook codex`: resolves to the exit code, which is always 0. */
export async function runCodexHook(argv: readonly string[], io: CodexHookIo): Promise<number> {
  let args: CodexHookArgs;
  try {
    args = parseCodexHookArgs(argv);
  } catch (error) {
    writeHookReply(io, failOpen(error));
    return 0;
  }
  if (args.help) {
    io.stdout.write(CODEX_HOOK_USAGE);
    return 0;
  }
  let store: Store | null = null;
  let response: CodexHookResponse;
  try {
    const event = parseCodexHookInput(await readHookInput(io));
    if (!needsStore(event)) return 0;
    const cwd = event.cwd ?? io.cwd;
    // Only the default per-project folder ignores itself; a named one is the user's.
    const defaulted = args.dir === undefined && !io.env[STORE_ROOT_ENV]?.trim();
    const root = codexStoreRoot({ dir: args.dir, env: io.env, cwd });
    const project = codexProjectDir(cwd);
    store = await openHookStore({
      dir: args.dir,
      databaseUrl: args.databaseUrl,
      schema: args.schema,
      env: io.env,
      root,
      ...(defaulted ? { project } : {}),
    });
    response = await handleCodexHookEvent(event, {
      store,
      project: lazyHookProject({
        cwd,
        projectDir: project,
        storeRoot: root,
        env: io.env,
        presetFlag: args.preset,
      }),
      ...(args.preset !== undefined ? { preset: args.preset as PresetName } : {}),
      waitOnQuestions: !args.nudgeAfterQuestions,
      readRollout: (path) => readTranscriptTail(path, ROLLOUT_TAIL_BYTES),
      readGoalLine: (path) => lastLineWith(path, GOAL_EVENT_MARKER),
    });
  } catch (error) {
    response = failOpen(error);
  } finally {
    await store?.close().catch(() => undefined);
  }
  writeHookReply(io, response);
  return 0;
}
