/**
 * `todo-continuation/pi`: a pi extension that gives the model todo tools and
 * keeps the run going until the list is done, within the engine's budgets.
 *
 * Load it with `pi -e <path to this module>` or list it under `extensions` in
 * pi's settings.json. The default export reads its options from the
 * environment; `createPiExtension(options)` builds one with explicit options.
 */
import { createPiExtension } from "./extension.js";
import type { PiExtensionApi } from "./pi-api.js";

export {
  NUDGE_MESSAGE_TYPE,
  PiContinuation,
  type PiContinuationOptions,
  REMINDER_MESSAGE_TYPE,
} from "./continuation.js";
export {
  createPiExtension,
  DIALECT_ENV,
  type PiExtensionOptions,
  PRESET_ENV,
} from "./extension.js";
export type { PiExtensionApi } from "./pi-api.js";
export { isSubagent, PARENT_ENV, SUBAGENT_ENV } from "./subagent.js";

/** The extension with options from the environment (`TODO_CONTINUATION_DIALECT`, `_PRESET`, `_DIR`). */
export default function todoContinuation(pi: PiExtensionApi): void {
  createPiExtension()(pi);
}
