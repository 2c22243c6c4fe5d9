export { budgetSkip } from "./budgets.js";
export { cooldownDelay, inCooldown } from "./cooldown.js";
export { decide, episodeId, isSafeOutcome, SAFE_STOP_REASONS } from "./decide.js";
export { LIMIT_KEYS, resolveLimits, UNLIMITED } from "./limits.js";
export { PRESET_NAMES, PRESETS, resolvePreset } from "./presets.js";
export { addTokens, foldSpend, turnSpend } from "./spend.js";
export { judgeStagnation, madeProgress, type StagnationVerdict } from "./stagnation.js";
export * from "./state.js";
export * from "./transitions.js";
