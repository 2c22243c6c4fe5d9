// One worker process of the cross-process race test. It runs the real
// runtime on the built package against a shared PostgreSQL schema. Per round
// and per scope it adds its own todo (a parley todo_write call), records the
// turn outcome when it owns the scope this round, and handles an idle.
// Usage (forked): race-worker.mjs <distDir> <connectionString> <schema> <index> <workers> <scopes> <lanes>
import { pathToFileURL } from "node:url";

const [distDir, connectionString, schema, indexText, workersText, scopesText, lanesText] =
  process.argv.slice(2);
const index = Number(indexText);
const workers = Number(workersText);
const scopes = Number(scopesText);
const lanes = Number(lanesText);

const load = (path) => import(pathToFileURL(`${distDir}/${path}`).href);
const { createPostgresStore } = await load("store/postgres/index.js");
const { ContinuationRuntime } = await load("runtime/index.js");
const { resolveScope } = await load("core/scope/scope.js");
const { parleyTools } = await load("core/dialects/index.js");

const scopeFor = (i) => resolveScope({ kind: "session", host: "race", sessionId: `scope-${i}` });

// Few connections: the store batches concurrent work, and the server is shared.
const store = createPostgresStore({ connectionString, schema, poolSize: 4 });
const runtime = new ContinuationRuntime({
  store,
  dialect: "parley",
  // Budgets high enough that only the turn outcome decides: the test counts nudges.
  limits: { maxAutoTurns: 1000, stagnationLimit: 1000 },
});
const todoWrite = parleyTools().find((tool) => tool.name === "todo_write");

function shuffled(n) {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

async function round(r) {
  const counts = { inject: 0, skips: {} };
  const order = shuffled(scopes);
  let next = 0;
  const lane = async () => {
    for (let k = next++; k < order.length; k = next++) {
      const i = order[k];
      const scope = scopeFor(i);
      const written = await runtime.callTool(scope, todoWrite, { items: [`w${index} r${r}`] });
      if (written.isError) throw new Error(`todo_write failed: ${written.text}`);
      if (i % workers === index) {
        await runtime.turnEnded(scope, {
          turnId: `turn-${r}`,
          stopReason: "stop",
          injected: r > 0,
        });
      }
      const idle = await runtime.runIdle(scope, { deliver: () => undefined, trigger: "race" });
      if (idle.action === "inject") counts.inject++;
      else counts.skips[idle.reason] = (counts.skips[idle.reason] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return counts;
}

process.on("message", (message) => {
  if (message.type === "round") {
    round(message.round).then(
      (counts) => process.send({ type: "round-done", round: message.round, ...counts }),
      (error) => process.send({ type: "failed", error: String(error?.stack ?? error) }),
    );
  } else if (message.type === "exit") {
    store.close().finally(() => process.disconnect());
  }
});
await store.ready();
process.send({ type: "ready" });
