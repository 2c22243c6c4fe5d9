export { benchPostgres, type PostgresBenchOptions, type PostgresBenchResult } from "./bench.js";
export { PostgresUnavailableError } from "./errors.js";
export { migrate } from "./migrate.js";
export {
  DATABASE_URL_ENV,
  DEFAULT_POOL_SIZE,
  DEFAULT_POSTGRES_LOG_LIMIT,
  DEFAULT_SCHEMA,
  type PostgresConnectionOptions,
  type PostgresStoreOptions,
} from "./options.js";
export {
  type ContentionStats,
  createPostgresStore,
  PostgresStore,
} from "./postgres-store.js";
export { LATEST_SCHEMA_VERSION, type MigrationReport } from "./schema.js";
