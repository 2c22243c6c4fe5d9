import type { PresetName, Store } from "../../core/types.js";
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
import { defaultChildRoot, fileChildRuns } from "./children.js";
import { type GeminiHookResponse, handleGeminiHookEvent, handleStorelessEvent } from "./handler.js";
import { parseGeminiHookInput } from "./payload.js";
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

function failure(reason: unknown): GeminiHookResponse {
  const message = reason instanceof Error ? reason.message : String(reason);
  return {
    stdout: "{}",
    stderr: [`todo-continuation: hook failed, allowing the stop: ${message}`],
    exitCode: 0,
  };
}

/**
 * One Gemini CLI hook event in, Gemini CLI's answer out. Resolves to the exit
 * code, which is always 0: the hook never fails closed on its own errors.
 */
export async function runGeminiHook(argv: readonly string[], io: GeminiHookIo): Promise<number> {
  let args: GeminiHookArgs;
  try {
    args = parseGeminiHookArgs(argv);
  } catch (error) {
    writeHookReply(io, failure(error));
    return 0;
  }
  if (args.help) {
    io.stdout.write(GEMINI_HOOK_USAGE);
    return 0;
  }
  let store: Store | null = null;
  let response: GeminiHookResponse;
  try {
    const event = parseGeminiHookInput(await readHookInput(io));
    const children = fileChildRuns(io.env.TODO_CONTINUATION_GEMINI_CHILDREN ?? defaultChildRoot());
    const storeless = await handleStorelessEvent(event, children);
    if (storeless !== null) {
      writeHookReply(io, storeless);
      return 0;
    }
    if (event.kind === "other") return 0; // Answered above; this narrows the type.
    const cwd = event.cwd ?? io.cwd;
    const root = geminiStoreRoot({ dir: args.dir, env: io.env, cwd });
    const project = geminiProjectDir(io.env, cwd);
    store = await openHookStore({
      dir: args.dir,
      databaseUrl: args.databaseUrl,
      schema: args.schema,
      env: io.env,
      root,
      project,
    });
    response = await handleGeminiHookEvent(event, {
      store,
      project: lazyHookProject({
        cwd,
        projectDir: project,
        storeRoot: root,
        env: io.env,
        presetFlag: args.preset,
      }),
      children,
      ...(args.preset !== undefined ? { preset: args.preset as PresetName } : {}),
      waitOnQuestions: !args.nudgeAfterQuestions,
    });
  } catch (error) {
    response = failure(error);
  } finally {
    await store?.close().catch(() => undefined);
  }
  writeHookReply(io, response);
  return 0;
}
