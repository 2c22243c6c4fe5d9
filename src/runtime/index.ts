export * from "./auto-clear.js";
export * from "./classify.js";
export * from "./enforcer.js";
export * from "./questions.js";
export * from "./runtime.js";
export * from "./wake-loop.js";
