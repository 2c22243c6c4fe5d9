export * from "./dialects/index.js";
export * from "./engine/index.js";
export * from "./nudge/index.js";
export * from "./scope/index.js";
export * from "./todo/model.js";
export * from "./todo/parse.js";
export * from "./todo/summary.js";
export * from "./types.js";
