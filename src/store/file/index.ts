export { resolveStoreRoot, STORE_ROOT_ENV } from "../root.js";
export {
  createFileStore,
  DEFAULT_LOCK_STALE_MS,
  DEFAULT_LOCK_TIMEOUT_MS,
  DEFAULT_LOG_LIMIT,
  type FileStore,
  type FileStoreOptions,
  TODO_FOLDER,
} from "./file-store.js";
export {
  DEFAULT_SNAPSHOT_MESSAGE,
  ensureGitignored,
  removeGitignored,
  type SnapshotResult,
  snapshotTodos,
  TRANSIENT_PATTERNS,
} from "./git.js";
export { parseLogEntry } from "./log.js";
export { type ScopePaths, scopePaths, UnsafePathError } from "./paths.js";
