/**
 * `todo-continuation/opencode`: the OpenCode plugin. OpenCode calls every
 * export of a plugin module as a plugin function and skips modules with any
 * other export, so this entry exports exactly one value; everything else here
 * is types, which do not exist at run time.
 *
 * Install it with `todo-continuation install opencode`, or list this module in
 * the `plugin` array of opencode.json, optionally with options:
 * `"plugin": [["file:///…/dist/hosts/opencode/index.js", { "preset": "omo" }]]`.
 */
export type {
  OpenCodeClient,
  OpenCodeEvent,
  OpenCodeHooks,
  OpenCodePlugin,
  OpenCodePluginInput,
} from "./client.js";
export type { OpenCodePluginOptions } from "./options.js";
export { TodoContinuation } from "./plugin.js";
