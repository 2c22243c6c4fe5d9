/**
 * Claude Code integration: hook handling (Stop, PostToolUse, UserPromptSubmit,
 * SessionStart, StopFailure), settings merging, and the pieces they are made
 * of, for anyone wiring the hooks by hand.
 */

export {
  HOOK_ARGS,
  type HookCommand,
  type HookCommandInput,
  hookCommand,
  isOurCommand,
  shellQuote,
} from "./command.js";
export {
  blockDecision,
  HOST,
  type HookOptions,
  type HookResponse,
  handleHookEvent,
  runHook,
} from "./handler.js";
export { HOOK_USAGE, type HookArgs, parseHookArgs, runClaudeCodeHook } from "./hook.js";
export {
  type ClaudeCodeInstallOptions,
  type ClaudeCodeInstallResult,
  installClaudeCode,
  type SettingsTarget,
  settingsPath,
  uninstallClaudeCode,
} from "./install.js";
export {
  asksTheUser,
  hasBackgroundWork,
  type StopFacts,
  type StopSignalInput,
  stopReasonOfFailure,
  stopReasonOfStop,
  stopSignals,
} from "./outcome.js";
export {
  type HookBase,
  type HookEvent,
  HookInputError,
  type KnownHookEvent,
  parseHookInput,
  parseHookObject,
} from "./payload.js";
export { isRealUserPrompt } from "./prompt-source.js";
export {
  HOOK_SPECS,
  HOOK_TIMEOUT_SECONDS,
  type HookSpec,
  installedCommand,
  mergeHooks,
  removeHooks,
  type SettingsChange,
  SettingsError,
} from "./settings.js";
export { decodeTurnTotals, encodeTurnId, spendSince } from "./spend.js";
export { hookStoreRoot, PROJECT_STORE_FOLDER, projectDir } from "./store-location.js";
export { readTaskFolder, taskFolder } from "./task-files.js";
export {
  applyTaskChange,
  closeInstructionFor,
  LIST_TOOLS,
  parseTaskChange,
  reconcileWithTaskFiles,
  type TaskChange,
  type TaskFileEntry,
  TodoInputError,
  type ToolFamily,
  todoFromTaskFile,
  todosFromTodoWrite,
  toolFamilyOf,
} from "./todos.js";
export { analyzeTranscript, readTranscriptTail, type TranscriptFacts } from "./transcript.js";
