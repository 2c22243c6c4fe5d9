/**
 * Codex CLI integration: hook handling (UserPromptSubmit, PostToolUse on
 * update_plan, Stop, Interrupt), the config.toml blocks and trust entries the
 * installer writes, and the doctor's check, for anyone wiring it by hand.
 */

export {
  CODEX_HOOK_SPECS,
  CODEX_HOOK_TIMEOUT_SECONDS,
  CODEX_INTERRUPT_TIMEOUT_SECONDS,
  CodexConfigError,
  installedCommand,
  installHooksBlock,
  installTrustBlock,
  projectTrusted,
  type TrustEntry,
  trustedHashes,
  uninstallHooksBlock,
  uninstallTrustBlock,
} from "./config-block.js";
export {
  CODEX_SUPPORTED,
  type CodexDoctorOptions,
  codexDoctor,
  codexVersionOnPath,
  createCodexDoctor,
} from "./doctor.js";
export {
  CODEX_HOST,
  type CodexHookOptions,
  type CodexHookResponse,
  codexBlockDecision,
  failOpen,
  handleCodexHookEvent,
  needsStore,
  runCodexHookText,
} from "./handler.js";
export { CODEX_HOOK_USAGE, type CodexHookIo, parseCodexHookArgs, runCodexHook } from "./hook.js";
export {
  type CodexInstallOptions,
  type CodexInstallResult,
  type CodexTarget,
  codexHome,
  codexHookCommand,
  installCodex,
  uninstallCodex,
} from "./install.js";
export {
  type CodexHookBase,
  type CodexHookEvent,
  CodexHookInputError,
  type KnownCodexHookEvent,
  parseCodexHookInput,
  parseCodexHookObject,
} from "./payload.js";
export { CLOSE_INSTRUCTION, PlanInputError, todosFromUpdatePlan, UPDATE_PLAN } from "./plan.js";
export { decodeOutcomeId, encodeOutcomeId, latestTotals } from "./rollout.js";
export { CODEX_PROJECT_STORE_FOLDER, codexProjectDir, codexStoreRoot } from "./store-location.js";
export {
  type CodexHookEventName,
  type CommandHook,
  codexHookHash,
  codexHookKey,
  EVENT_LABELS,
} from "./trust.js";
