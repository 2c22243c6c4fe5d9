/**
 * One process of the lock benchmark. Arguments: `<root> <durationMs>`. Runs
 * back-to-back transactions on one shared scope until the duration is up,
 * then prints, as JSON, how long each transaction waited for the lock (ms,
 * from the call to its callback running).
 */
import { createFileStore } from "./file-store.js";
import { HOT_SCOPE } from "./lock-bench.js";

async function main(): Promise<void> {
  const [root, duration] = process.argv.slice(2);
  const store = createFileStore({ root: root! });
  const until = Date.now() + Number(duration);
  const waits: number[] = [];
  while (Date.now() < until) {
    const start = performance.now();
    await store.transact(HOT_SCOPE, (snapshot) => {
      waits.push(performance.now() - start);
      const count = snapshot.todos.todos.length > 0 ? Number(snapshot.todos.nextId) + 1 : 1;
      return {
        todos: {
          todos: [{ content: `turn ${count}`, status: "pending" }],
          phases: [],
          nextId: count,
        },
        result: null,
      };
    });
  }
  await store.close();
  process.stdout.write(JSON.stringify(waits));
}

await main();
