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
} from "../hook-process.js";
import { lazyHookProject } from "../hook-project.js";
import { type HookProtocol, handleHookEvent } from "./handler.js";
import { type HookEvent, parseHookInput } from "./payload.js";
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

/** A host whose hook process is this one under other names (Qwen Code). */
export interface HookProcessHost {
  name: string;
  usage: string;
  /** The store folder inside the project. */
  folder: string;
  parse: (text: string) => HookEvent;
  /** Read once per process: the host's cap may come from its environment. */
  protocol: (env: Record<string, string | undefined>) => HookProtocol;
}

/**
 * One Claude Code hook event in, Claude Code's answer out. Resolves to the
 * exit code, which is always 0: the hook never fails closed on its own
 * errors. Both the `todo-continuation hook claude-code` command and the
 * stand-alone entry (`bin.js`) run this; `host` serves a host that speaks
 * the same protocol under its own names.
 */
export async function runClaudeCodeHook(
  argv: readonly string[],
  io: HookIo,
  host?: HookProcessHost,
): Promise<number> {
  let args: HookArgs;
  try {
    args = parseSharedHookArgs(host?.name ?? "claude-code", argv);
  } catch (error) {
    writeHookReply(io, hookFailure(error, ALLOW));
    return 0;
  }
  if (args.help) {
    io.stdout.write(host?.usage ?? HOOK_USAGE);
    return 0;
  }
  let store: Store | null = null;
  let reply: HookReply;
  try {
    const event = (host?.parse ?? parseHookInput)(await readHookInput(io));
    // Nothing to do without opening the store: unknown events, subagents.
    if (event.kind === "other" || event.kind === "SubagentStop" || event.agentId !== null) return 0;
    const cwd = event.cwd ?? io.cwd;
    const root = hookStoreRoot({
      dir: args.dir,
      env: io.env,
      cwd,
      ...(host ? { folder: host.folder } : {}),
    });
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
      ...(host ? { protocol: host.protocol(io.env) } : {}),
    });
  } catch (error) {
    reply = hookFailure(error, ALLOW);
  } finally {
    await store?.close().catch(() => undefined);
  }
  writeHookReply(io, reply);
  return 0;
}
