/**
 * `todo-continuation/qwen`: the Qwen Code integration. Qwen speaks Claude
 * Code's hook protocol under its own names; this is that description, its
 * hook process, install and doctor.
 */
export { qwenDoctor } from "./doctor.js";
export * from "./hook.js";
export * from "./install.js";
export * from "./payload.js";
export * from "./protocol.js";
export * from "./transcript.js";
