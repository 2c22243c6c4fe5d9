import type { Pool, PoolClient } from "pg";

/**
 * Runs `work` between BEGIN and COMMIT on one pooled connection. `work`
 * returns `commit: false` to roll back instead (nothing worth keeping). Any
 * error rolls back; a connection that cannot even roll back is destroyed
 * rather than returned to the pool in an unknown state.
 */
export async function withTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<{ commit: boolean; value: T }>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const { commit, value } = await work(client);
    await client.query(commit ? "COMMIT" : "ROLLBACK");
    return value;
  } catch (error) {
    try {
      await client.query("ROLLBACK");
    } catch (rollbackError) {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
