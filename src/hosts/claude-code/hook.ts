import type { PresetName, Store } from "../../core/types.js";
import {
  type HookArgs,
  type HookIo,
  type HookReply,
  hookFailure,
  hookOptionsUsage,
  openHookStore,
  parseHookArgs as parseSharedHookArgs,
  readHookInput,
  writeHookReply,
} from "../hook-kit/process.js";
import { lazyHookProject } from "../hook-kit/project.js";
import { handleHookEvent } from "./handler.js";
import { parseHookInput } from "./payload.js";
import { hookStoreRoot, projectDir } from "./store-location.js";

export const HOOK_USAGE = `Usage: todo-continuation hook claude-code [options] < event.json

Reads one Claude Code hook event as JSON on stdin and answers as Claude Code
expects: a Stop that should continue prints {"decision":"block","reason":...}.
Always exits 0; errors allow the stop and are explained on stderr.

${hookOptionsUsage("$CLAUDE_PROJECT_DIR/.claude/todo-continuation")}`;

export type { HookArgs };

/** Reads the hook's options; `argv` may start with `hook` and the host name (`claude-code`). */
export function parseHookArgs(argv: readonly string[]): HookArgs {
  return parseSharedHookArgs("claude-code", argv);
}

const ALLOW = "allowing the stop";

/**
 * One Claude Code hook event in, Claude Code's answer out. Resolves to the
 * exit code, which is always 0: the hook never fails closed on its own
 * errors. Both the `todo-continuation hook claude-code` command and the
 * stand-alone entry (`bin.js`) run this.
 */
export async function runClaudeCodeHook(argv: readonly string[], io: HookIo): Promise<number> {
  let args: HookArgs;
  try {
    args = parseHookArgs(argv);
  } catch (error) {
    writeHookReply(io, hookFailure(error, ALLOW));
    return 0;
  }
  if (args.help) {
    io.stdout.write(HOOK_USAGE);
    return 0;
  }
  let store: Store | null = null;
  let reply: HookReply;
  try {
    const event = parseHookInput(await readHookInput(io));
    // Nothing to do without opening the store: unknown events, subagents.
    if (event.kind === "other" || event.kind === "SubagentStop" || event.agentId !== null) return 0;
    const cwd = event.cwd ?? io.cwd;
    const root = hookStoreRoot({ dir: args.dir, env: io.env, cwd });
    const project = projectDir(io.env, cwd);
    store = await openHookStore({
      dir: args.dir,
      databaseUrl: args.databaseUrl,
      schema: args.schema,
      env: io.env,
      root,
      project,
    });
    reply = await handleHookEvent(event, {
      store,
      project: lazyHookProject({
        cwd,
        projectDir: project,
        storeRoot: root,
        env: io.env,
        presetFlag: args.preset,
      }),
      ...(args.preset !== undefined ? { preset: args.preset as PresetName } : {}),
      env: io.env,
      waitOnQuestions: !args.nudgeAfterQuestions,
    });
  } catch (error) {
    reply = hookFailure(error, ALLOW);
  } finally {
    await store?.close().catch(() => undefined);
  }
  writeHookReply(io, reply);
  return 0;
}
