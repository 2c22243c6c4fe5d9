import { resolveStoreRoot } from "../../store/root.js";
import { type HookMainSpec, runHookMain } from "../hook-kit/main.js";
import { type HookIo, hookFailure, hookOptionsUsage, writeHookReply } from "../hook-kit/process.js";
import { handleCopilotEvent } from "./handler.js";
import {
  COPILOT_EVENTS,
  type CopilotEvent,
  type CopilotEventName,
  parseCopilotInput,
} from "./payload.js";

export const COPILOT_HOOK_USAGE = `Usage: todo-continuation hook copilot --event <agentStop|userPromptSubmitted> [options] < event.json

Reads one GitHub Copilot CLI hook payload as JSON on stdin. At agentStop with open
todos (the session's sql \`todos\` table) it prints {"decision":"block","reason":...}.
Always exits 0; errors allow the stop and are explained on stderr.

${hookOptionsUsage("$XDG_STATE_HOME/todo-continuation")}`;

const failure = (error: unknown) => hookFailure(error, "allowing the stop");

/** Splits off `--event`, which only this hook has (Copilot's payloads name no event). */
function eventOf(argv: readonly string[]): { event: CopilotEventName | null; rest: string[] } {
  const at = argv.findIndex((a) => a === "--event" || a.startsWith("--event="));
  if (at < 0) return { event: null, rest: [...argv] };
  const inline = (argv[at] as string).startsWith("--event=");
  const event = inline ? (argv[at] as string).slice("--event=".length) : argv[at + 1];
  if (!(COPILOT_EVENTS as readonly (string | undefined)[]).includes(event)) {
    throw new Error(
      `--event must be one of ${COPILOT_EVENTS.join(", ")}, got ${JSON.stringify(event)}`,
    );
  }
  const rest = argv.filter((_, i) => i !== at && (inline || i !== at + 1));
  return { event: event as CopilotEventName, rest };
}

/** Copilot CLI's hook process for one event, described for the kit. */
export function copilotHook(event: CopilotEventName): HookMainSpec<CopilotEvent> {
  // The store's folder, once the kit has chosen it: the handler notes its nudges there.
  let root = "";
  return {
    host: "copilot",
    usage: COPILOT_HOOK_USAGE,
    parse: (text) => parseCopilotInput(text, event),
    failure,
    storeless: () => null,
    cwdOf: (e) => e.cwd,
    storeRoot: ({ dir, env, cwd }) => {
      root = resolveStoreRoot(dir, { env, cwd });
      return root;
    },
    projectDir: ({ cwd }) => cwd,
    handle: (e, context) => handleCopilotEvent(e, { ...context, noteDir: root }),
  };
}

/** One Copilot hook event in, Copilot's answer out; always exit code 0. */
export async function runCopilotHook(argv: readonly string[], io: HookIo): Promise<number> {
  try {
    const { event, rest } = eventOf(argv);
    if (event !== null) return await runHookMain(copilotHook(event), rest, io);
    io.stdout.write(COPILOT_HOOK_USAGE);
  } catch (error) {
    writeHookReply(io, failure(error));
  }
  return 0;
}
