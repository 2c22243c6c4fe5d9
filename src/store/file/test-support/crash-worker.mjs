// A worker process of the crash tests: runs the real runtime on the built
// package against a file store (or, given a schema, PostgreSQL at <root> as a
// connection string), one nudge per idle, and kills itself (SIGKILL) when
// file-store commits reach step number <killAt> (0: never).
// Usage: crash-worker.mjs <distDir> <root> <logLimit> <idles> <killAt> [schema]
import { pathToFileURL } from "node:url";

const [distDir, root, logLimitText, idlesText, killAtText, schema] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(`${distDir}/${path}`).href);
const { createFileStore } = await load("store/file/index.js");
const { commitProbe } = await load("store/file/commit.js");
const { ContinuationRuntime } = await load("runtime/index.js");
const { resolveScope } = await load("core/scope/scope.js");

const scope = resolveScope({ kind: "cron", jobId: "crash" });
const { createPostgresStore } = await load("store/postgres/index.js");
const logLimit = Number(logLimitText);
const store =
  schema === undefined
    ? createFileStore({ root, logLimit })
    : createPostgresStore({ connectionString: root, schema, logLimit, poolSize: 2 });
const runtime = new ContinuationRuntime({
  store,
  limits: { maxAutoTurns: 100_000, stagnationLimit: 100_000 },
});

const killAt = Number(killAtText);
let steps = 0;
commitProbe.reached = (step) => {
  steps++;
  if (steps === killAt) {
    process.stderr.write(`killed at ${step}\n`);
    process.kill(process.pid, "SIGKILL");
  }
};

// Connected (PostgreSQL) before the parent times a random kill from here.
await store.ready?.();
process.stdout.write("ready\n");
for (let i = 0; i < Number(idlesText); i++) {
  await runtime.runIdle(scope, {
    deliver: () => undefined,
    trigger: "crash-test",
    outcome: { turnId: `${process.pid}-${i}`, stopReason: "stop", injected: true },
  });
}
await store.close();
