export { QUOTE_LIMIT } from "./issues.js";
export * from "./markdown/index.js";
export { parleyTools } from "./parley.js";
export { fromPhaseTree, normalizeActive, type PhaseGroup, phaseTree } from "./phases.js";
export { piTools } from "./pi.js";
export {
  applyPiOps,
  type CompletedTask,
  PI_OPS,
  type PiBatchResult,
  type PiOpName,
} from "./pi-ops.js";
export { formatPiSummary } from "./pi-summary.js";
export { MAX_TODO_TEXT } from "./tool.js";
export {
  closeInstruction,
  createToolset,
  DIALECTS,
  type Dialect,
  findTool,
  isDialectName,
  type ToolsetOptions,
} from "./toolset.js";
export { typeclawTools } from "./typeclaw.js";
