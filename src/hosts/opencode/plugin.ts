import { createFileStore } from "../../store/file/file-store.js";
import type { OpenCodeHooks, OpenCodePlugin, OpenCodePluginInput } from "./client.js";
import { OpenCodeContinuation } from "./continuation.js";
import { type CopyTarget, joinCopies } from "./copies.js";
import {
  OpenCodeOptionsError,
  type OpenCodePluginOptions,
  parseOpenCodeOptions,
} from "./options.js";

function checkInput(input: unknown): OpenCodePluginInput {
  const client = (input as { client?: unknown } | null)?.client as
    | { session?: Record<string, unknown> }
    | undefined;
  const session = client?.session;
  if (
    !session ||
    typeof session.todo !== "function" ||
    typeof session.get !== "function" ||
    typeof session.promptAsync !== "function"
  ) {
    throw new OpenCodeOptionsError(
      "the plugin input has no OpenCode client with session.todo, session.get and session.promptAsync; is this OpenCode 1.x?",
    );
  }
  return input as OpenCodePluginInput;
}

/**
 * Builds the plugin function. `defaults` are merged under the options OpenCode
 * passes (from a `["<spec>", {options}]` entry of the config's `plugin` list),
 * so a generated plugin file can carry the options chosen at install time.
 */
export function createOpenCodePlugin(defaults: OpenCodePluginOptions = {}): OpenCodePlugin {
  // `installedIn`: the third argument a plugin file written by `install` passes (see copies.ts).
  return async (input, options, installedIn?: CopyTarget) => {
    if (options !== undefined && options !== null) parseOpenCodeOptions(options); // names a bad one
    const merged: OpenCodePluginOptions = { ...defaults, ...((options ?? {}) as object) };
    const settings = parseOpenCodeOptions(merged);
    const { client, directory } = checkInput(input);
    const store = createFileStore(
      settings.storeDir !== undefined ? { root: settings.storeDir } : {},
    );
    const continuation = new OpenCodeContinuation({
      client,
      settings,
      store,
      // The project's config file: read now (a problem is told at once) and again when it changes.
      ...(typeof directory === "string" && directory !== ""
        ? { project: { directory, options: merged, cacheDir: store.root } }
        : {}),
    });
    await continuation.refreshProject();
    // Kilo runs this same plugin in a process of its own: one name serves both.
    const copy = joinCopies(
      "opencode",
      typeof directory === "string" ? directory : "",
      installedIn,
    );
    const hooks: OpenCodeHooks = {
      // Ours loaded from two plugin folders: only one copy decides (see copies.ts).
      event: async ({ event }) => (copy.acts() ? continuation.handle(event) : undefined),
      dispose: () => {
        copy.leave();
        return continuation.dispose();
      },
    };
    return hooks;
  };
}

/** The plugin with OpenCode's options (or none): what the package's `./opencode` entry exports. */
export const TodoContinuation: OpenCodePlugin = createOpenCodePlugin();
