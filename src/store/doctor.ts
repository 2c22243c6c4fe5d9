import type { DoctorCheck, DoctorFinding } from "../core/doctor.js";
import { homeOf, notWritable } from "./file/probes.js";
import { describeTarget } from "./postgres/options.js";
import { resolveStoreRoot } from "./root.js";

const HOST = "store";

/** The variable that points every process at PostgreSQL. */
const DATABASE_URL_ENV = "TODO_CONTINUATION_DATABASE_URL";

/** Tries one connection and `SELECT 1`; resolves to null when it worked, else the reason. */
async function unreachable(connectionString: string): Promise<string | null> {
  // Loaded only when PostgreSQL is configured: the driver costs start-up time.
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The store: with `TODO_CONTINUATION_DATABASE_URL` set, PostgreSQL must
 * answer; otherwise the file store's folder must be writable.
 */
export const storeDoctor: DoctorCheck = async (ctx) => {
  const url = ctx.env[DATABASE_URL_ENV]?.trim();
  if (url) {
    const target = describeTarget(url, null);
    const where = `PostgreSQL ${target.host}:${target.port}/${target.database}`;
    const problem = await unreachable(url);
    const finding: DoctorFinding =
      problem === null
        ? { host: HOST, check: "postgres", ok: true, message: `${where} answers` }
        : {
            host: HOST,
            check: "postgres",
            ok: false,
            message: `${where} is not reachable: ${problem.slice(0, 200)}`,
            fix: `start PostgreSQL or correct ${DATABASE_URL_ENV} (then: todo-continuation migrate)`,
          };
    return [finding];
  }
  const root = resolveStoreRoot(undefined, {
    env: ctx.env,
    home: homeOf(ctx.env, ctx.home),
    cwd: ctx.cwd,
  });
  const problem = await notWritable(root);
  return [
    problem === null
      ? { host: HOST, check: "files", ok: true, message: `file store ${root} is writable` }
      : {
          host: HOST,
          check: "files",
          ok: false,
          message: `the file store cannot be written: ${problem}`,
          fix: `make ${root} writable, or set TODO_CONTINUATION_DIR to a writable folder`,
        },
  ];
};
