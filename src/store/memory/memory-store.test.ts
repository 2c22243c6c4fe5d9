import { runStoreContract } from "../contract.js";
import { MemoryStore } from "./memory-store.js";

runStoreContract("MemoryStore", async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
});
