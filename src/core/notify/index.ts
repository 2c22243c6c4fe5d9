export * from "./events.js";
export * from "./stale.js";
