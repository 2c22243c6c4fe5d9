export * from "./core/index.js";
export { MemoryStore } from "./store/memory/memory-store.js";
