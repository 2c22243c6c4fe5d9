/**
 * `todo-continuation/qwen`: the Qwen Code integration. Qwen speaks Claude
 * Code's hook protocol under its own names; this is that description, its
 * hook process, install and doctor.
 */
export { QWEN_HOOK_USAGE, runQwenHook } from "./hook.js";
export {
  enablesTodoWrite,
  installQwen,
  isQwenHandler,
  QWEN_HOOK_ARGS,
  type QwenInstallOptions,
  type QwenInstallResult,
  type QwenTarget,
  qwenHome,
  qwenLedgerPath,
  qwenSettingsPath,
  uninstallQwen,
} from "./install.js";
export { parseQwenHookInput, QWEN_MACHINE_SOURCE, qwenToClaude } from "./payload.js";
export {
  QWEN,
  QWEN_BLOCK_CAP_ENV,
  QWEN_CLOSE_INSTRUCTION,
  QWEN_DEFAULT_BLOCK_CAP,
  QWEN_EVENTS,
  QWEN_STORE_FOLDER,
  QWEN_TODO_WRITE,
  qwenBlockCap,
  qwenProtocol,
} from "./protocol.js";
export { analyzeQwenTranscript, usageFromQwen } from "./transcript.js";
