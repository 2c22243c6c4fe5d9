import { perEvent } from "../../core/per-event.js";
import type { PresetName, Store } from "../../core/types.js";
import {
  CLAIM_RENEWED_AFTER_MS,
  claimCopy,
  copyIdentity,
  type InstallTarget,
  renewCopyClaim,
} from "./event-claim.js";
import {
  type HookArgs,
  type HookIo,
  type HookReply,
  openHookStore,
  parseHookArgs,
  readHookInput,
  writeHookReply,
} from "./process.js";
import { type HookProject, lazyHookProject } from "./project.js";

/**
 * The hook process every hook host runs: read the options and one event,
 * answer what needs no store, open the store, hand the event to the host's
 * handler, close the store, write the answer. Never fails closed: an error of
 * its own allows the stop, is explained in one stderr line, and exits 0.
 */

/** What every host's handler is given besides the event. */
export interface HookContext {
  store: Store;
  /** The project's config, read on first ask (once per process). */
  project: () => HookProject;
  preset?: PresetName;
  /** False with `--nudge-after-questions`: a question to the user then does not hold the nudge. */
  waitOnQuestions: boolean;
  env: Record<string, string | undefined>;
  args: HookArgs;
  /** The file store's folder (notes of the host's own live beside the store). */
  storeRoot: string;
  /** The session's project folder (recorded in the scope's state for the dashboard). */
  projectDir: string;
}

/** Where an event's session works and keeps its store. */
export interface HookPlace {
  /** The session's working folder (the event's `cwd`, else the process's). */
  cwd: string;
  env: Record<string, string | undefined>;
  /** `--dir`, when given. */
  dir: string | undefined;
}

/** A hook host as the hook process sees it: its protocol, and the code that is its own. */
export interface HookMainSpec<E> {
  /** The host's name in `hook <host>`. */
  host: string;
  /** `hook <host> --help`. */
  usage: string;
  /** The event from stdin's text (and `--event`, when `events` is given); throws naming the bad field. */
  parse: (text: string, event: string | undefined) => E;
  /** For a host whose payloads name no event: the names `--event` takes (then it is required). */
  events?: readonly string[];
  /** The reply when the hook fails on its own (it allows the stop). */
  failure: (error: unknown) => HookReply;
  /**
   * The reply to an event that needs no store, or null when it needs one.
   * An empty reply (`{stdout: "", stderr: []}`) answers nothing.
   */
  storeless: (event: E, io: HookIo) => Promise<HookReply | null> | HookReply | null;
  /** The event's working folder, when it names one. */
  cwdOf: (event: E) => string | null;
  /** The folder of the file store. */
  storeRoot: (place: HookPlace) => string;
  /** The project the session works on. */
  projectDir: (place: HookPlace) => string;
  /**
   * Whether a store folder created inside a git work tree gets its own
   * `.gitignore` (default: always; a host may keep it to its default folder).
   */
  ignoresStore?: (place: HookPlace) => boolean;
  handle: (event: E, context: HookContext) => Promise<HookReply>;
  /**
   * The session and name of an event, for a host that runs every hook command it is given for
   * an event, side by side, with one payload: ours in its user's and its project's settings, or
   * two copies of the package, then answer each event once (`claimCopy`). Null for an event no
   * claim is needed for.
   */
  eventOf?: (event: E) => { sessionId: string; name: string } | null;
  /** What stdout says when the hook has nothing to say (default: nothing; Gemini CLI wants `{}`). */
  emptyStdout?: string;
}

/** Nothing to say: the host carries on. */
export const NO_REPLY: HookReply = { stdout: "", stderr: [] };

/** The event the last `runHookMain` of this process read (its host's name for it), if any. */
let lastEvent: string | null = null;
perEvent(() => {
  lastEvent = null;
});

/**
 * The event this process's hook answered: the code cache is refreshed the first time a bundle
 * answers an event it had not (each kind of event runs functions the others do not).
 */
export function lastHookEvent(): string | null {
  return lastEvent;
}

/** What a run whose twin (another installed command of ours) handled the event says. */
function copyDone(event: string, target: InstallTarget | undefined, stdout = ""): HookReply {
  const where = target === undefined ? "" : ` (this one is in the ${target}'s settings)`;
  return {
    stdout,
    stderr: [
      `todo-continuation: this ${event} was handled by another installed copy of this hook${where}; nothing done`,
    ],
  };
}

/** The event's name as hosts send it (`hook_event_name`), read without parsing the whole input. */
function eventNameOf(input: string): string | null {
  return /"hook_event_name"\s*:\s*"([A-Za-z_-]{1,40})"/.exec(input.slice(0, 4096))?.[1] ?? null;
}

/** `todo-continuation hook <host>`: resolves to the exit code, which is always 0. */
export async function runHookMain<E>(
  spec: HookMainSpec<E>,
  argv: readonly string[],
  io: HookIo,
): Promise<number> {
  let args: HookArgs;
  try {
    args = parseHookArgs(spec.host, argv, spec.events);
  } catch (error) {
    writeHookReply(io, spec.failure(error));
    return 0;
  }
  if (args.help || (spec.events !== undefined && args.event === undefined)) {
    io.stdout.write(spec.usage);
    return 0;
  }
  let store: Store | null = null;
  let reply: HookReply;
  try {
    const input = await readHookInput(io);
    lastEvent = args.event ?? eventNameOf(input);
    const event = spec.parse(input, args.event);
    const early = await spec.storeless(event, io);
    if (early !== null) {
      writeHookReply(io, early);
      return 0;
    }
    const place: HookPlace = { cwd: spec.cwdOf(event) ?? io.cwd, env: io.env, dir: args.dir };
    const root = spec.storeRoot(place);
    const project = spec.projectDir(place);
    store = await openHookStore({
      dir: args.dir,
      databaseUrl: args.databaseUrl,
      schema: args.schema,
      env: io.env,
      root,
      ...((spec.ignoresStore?.(place) ?? true) ? { project } : {}),
    });
    const twin = spec.eventOf?.(event) ?? null;
    const claimedAt = Date.now();
    const byTwin =
      twin !== null &&
      !claimCopy(root, spec.host, twin.sessionId, twin.name, input, copyIdentity(argv));
    reply = byTwin
      ? copyDone(twin.name, args.target, spec.emptyStdout)
      : await spec.handle(event, {
          store,
          project: lazyHookProject({
            cwd: place.cwd,
            projectDir: project,
            storeRoot: root,
            host: spec.host,
            env: io.env,
            presetFlag: args.preset,
            modeFlag: args.mode,
          }),
          ...(args.preset !== undefined ? { preset: args.preset as PresetName } : {}),
          waitOnQuestions: !args.nudgeAfterQuestions,
          env: io.env,
          args,
          storeRoot: root,
          projectDir: project,
        });
    // A twin run after this one, not beside it, must still find the claim fresh.
    if (twin !== null && !byTwin && Date.now() - claimedAt > CLAIM_RENEWED_AFTER_MS) {
      renewCopyClaim(root, spec.host, twin.sessionId, twin.name, input);
    }
  } catch (error) {
    reply = spec.failure(error);
  } finally {
    await store?.close().catch(() => undefined);
  }
  writeHookReply(io, reply);
  return 0;
}
