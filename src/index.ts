/**
 * todo-continuation: the pure core (todo model, dialects, scopes, engine,
 * nudges), the runtime that connects it to events, and the embedded stores.
 * Host integrations live behind their own subpaths (`/claude-code`,
 * `/opencode`, `/pi`, `/ai-sdk`, `/mcp`, `/postgres`).
 */
export * from "./core/index.js";
export { createRuntimeNotifier, type RuntimeNotifierOptions } from "./notify/runtime-notifier.js";
export * from "./runtime/index.js";
export * from "./store/file/index.js";
export { MemoryStore, type MemoryStoreOptions } from "./store/memory/memory-store.js";
export { DEFAULT_SCAN_BATCH, scanScopes } from "./store/scan.js";
