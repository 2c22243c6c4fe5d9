import { afterEach, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import { emptyList } from "../../core/todo/model.js";
import { listenForChanges } from "./changes.js";
import { createPostgresStore, type PostgresStore } from "./postgres-store.js";
import { dropSchema, randomSchema, TEST_DATABASE_URL } from "./test-support/database.js";

describe("listenForChanges", () => {
  const opened: { store: PostgresStore; stop: () => Promise<void> }[] = [];
  afterEach(async () => {
    for (const { store, stop } of opened.splice(0)) {
      await stop();
      await store.close();
      await dropSchema(store.schema);
    }
  });

  it("reports each scope written, deleted or logged, and only on its own schema", async () => {
    const store = createPostgresStore({
      connectionString: TEST_DATABASE_URL,
      schema: randomSchema(),
    });
    const other = createPostgresStore({
      connectionString: TEST_DATABASE_URL,
      schema: randomSchema(),
    });
    await store.ready();
    await other.ready();
    const seen: string[] = [];
    const listener = await listenForChanges(
      TEST_DATABASE_URL,
      store.schema,
      (keys) => seen.push(...keys),
      10,
    );
    opened.push({ store, stop: () => listener.close() }, { store: other, stop: async () => {} });
    const scope = resolveScope({ kind: "cron", jobId: "nightly" })!;
    const elsewhere = resolveScope({ kind: "cron", jobId: "elsewhere" })!;
    await other.transact(elsewhere, () => ({ todos: emptyList(), result: null }));
    await store.transact(scope, () => ({
      todos: { ...emptyList(), todos: [{ content: "a", status: "pending" }] },
      result: null,
    }));
    await expect.poll(() => seen, { timeout: 3000 }).toContain(scope.key);
    seen.length = 0;
    await store.deleteScope(scope);
    await expect.poll(() => seen, { timeout: 3000 }).toContain(scope.key);
    expect(seen).not.toContain(elsewhere.key);
  });
});
