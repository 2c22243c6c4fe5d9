import { type HookMainSpec, runHookMain } from "../hook-kit/main.js";
import {
  type HookArgs,
  type HookIo,
  type HookReply,
  hookFailure,
  hookOptionsUsage,
  parseHookArgs,
} from "../hook-kit/process.js";
import { defaultChildRoot, fileChildRuns } from "./children.js";
import { ALLOW, handleGeminiHookEvent, handleStorelessEvent } from "./handler.js";
import { type GeminiHookEvent, type KnownGeminiEvent, parseGeminiHookInput } from "./payload.js";
import { geminiProjectDir, geminiStoreRoot } from "./store-location.js";

export const GEMINI_HOOK_USAGE = `Usage: todo-continuation hook gemini [options] < event.json

Reads one Gemini CLI hook event (BeforeAgent, BeforeTool, AfterTool, AfterAgent)
as JSON on stdin and answers as Gemini CLI expects: an AfterAgent that should
continue prints {"decision":"block","reason":...}. Always exits 0; errors allow
the stop and are explained on stderr.

${hookOptionsUsage("$GEMINI_PROJECT_DIR/.gemini/todo-continuation")}`;

/** Where the hook reads and writes (every hook process shares it); the CLI's io fits. */
export type GeminiHookIo = HookIo;

export type GeminiHookArgs = HookArgs;

/** Reads the hook's options; `argv` may start with the host name (`gemini`). */
export function parseGeminiHookArgs(argv: readonly string[]): GeminiHookArgs {
  return parseHookArgs("gemini", argv);
}

function failure(reason: unknown): HookReply {
  return { ...hookFailure(reason, "allowing the stop"), stdout: "{}" };
}

const children = (env: Record<string, string | undefined>) =>
  fileChildRuns(env.TODO_CONTINUATION_GEMINI_CHILDREN ?? defaultChildRoot());

/** Gemini CLI's hook process, described for the kit. */
export const GEMINI_HOOK: HookMainSpec<GeminiHookEvent> = {
  host: "gemini",
  usage: GEMINI_HOOK_USAGE,
  parse: parseGeminiHookInput,
  failure,
  storeless: (event, io) => handleStorelessEvent(event, children(io.env)),
  cwdOf: (event) => (event.kind === "other" ? null : event.cwd),
  storeRoot: ({ dir, env, cwd }) => geminiStoreRoot({ dir, env, cwd }),
  projectDir: ({ env, cwd }) => geminiProjectDir(env, cwd),
  // Two copies of the package (a global one and the project's) write two commands, both run.
  eventOf: (event) =>
    event.kind === "other" ? null : { sessionId: event.sessionId, name: event.kind },
  emptyStdout: ALLOW,
  handle: (event, context) =>
    // `storeless` answered every other event.
    handleGeminiHookEvent(event as KnownGeminiEvent, {
      ...context,
      children: children(context.env),
    }),
};

/**
 * One Gemini CLI hook event in, Gemini CLI's answer out. Resolves to the exit
 * code, which is always 0: the hook never fails closed on its own errors.
 */
export function runGeminiHook(argv: readonly string[], io: GeminiHookIo): Promise<number> {
  return runHookMain(GEMINI_HOOK, argv, io);
}
