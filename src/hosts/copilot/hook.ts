import { parseArgs } from "node:util";
import type { PresetName, Store } from "../../core/types.js";
import { resolveStoreRoot } from "../../store/root.js";
import {
  type HookIo,
  hookFailure,
  hookOptionsUsage,
  openHookStore,
  parseHookArgs,
  readHookInput,
  writeHookReply,
} from "../hook-kit/process.js";
import { handleCopilotEvent } from "./handler.js";
import { COPILOT_EVENTS, type CopilotEventName, parseCopilotInput } from "./payload.js";

export const COPILOT_HOOK_USAGE = `Usage: todo-continuation hook copilot --event <agentStop|userPromptSubmitted> [options] < event.json

Reads one GitHub Copilot CLI hook payload as JSON on stdin. At agentStop with open
todos (the session's sql \`todos\` table) it prints {"decision":"block","reason":...}.
Always exits 0; errors allow the stop and are explained on stderr.

${hookOptionsUsage("$XDG_STATE_HOME/todo-continuation")}`;

/** Splits off `--event`, which only this hook has; the rest are every hook's options. */
function eventOf(argv: readonly string[]): { event: CopilotEventName | null; rest: string[] } {
  const { values, tokens } = parseArgs({
    args: [...argv],
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: { event: { type: "string" } },
  });
  const rest = [...argv];
  for (const token of [...tokens].reverse()) {
    if (token.kind === "option" && token.name === "event") {
      rest.splice(token.index, token.inlineValue ? 1 : 2);
    }
  }
  const event = values.event;
  if (event === undefined || event === true) return { event: null, rest };
  if (!(COPILOT_EVENTS as readonly string[]).includes(String(event))) {
    throw new Error(
      `--event must be one of ${COPILOT_EVENTS.join(", ")}, got ${JSON.stringify(event)}`,
    );
  }
  return { event: event as CopilotEventName, rest };
}

/** One Copilot hook event in, Copilot's answer out; always exit code 0. */
export async function runCopilotHook(argv: readonly string[], io: HookIo): Promise<number> {
  let store: Store | null = null;
  try {
    const { event, rest } = eventOf(argv);
    const args = parseHookArgs("copilot", rest);
    if (args.help || event === null) {
      io.stdout.write(COPILOT_HOOK_USAGE);
      return 0;
    }
    const parsed = parseCopilotInput(await readHookInput(io), event);
    const cwd = parsed.cwd ?? io.cwd;
    const root = resolveStoreRoot(args.dir, { env: io.env, cwd });
    store = await openHookStore({
      dir: args.dir,
      databaseUrl: args.databaseUrl,
      schema: args.schema,
      env: io.env,
      root,
      project: cwd,
    });
    writeHookReply(
      io,
      await handleCopilotEvent(parsed, {
        store,
        noteDir: root,
        ...(args.preset !== undefined ? { preset: args.preset as PresetName } : {}),
      }),
    );
  } catch (error) {
    writeHookReply(io, hookFailure(error, "allowing the stop"));
  } finally {
    await store?.close().catch(() => undefined);
  }
  return 0;
}
