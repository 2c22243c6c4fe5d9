import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { storeDoctor } from "./doctor.js";
import { TEST_DATABASE_URL } from "./postgres/test-support/database.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("storeDoctor", () => {
  it("finds the file store writable, or says which folder is not", async () => {
    const root = mkdtempSync(join(tmpdir(), "store-doctor-"));
    made.push(root);
    const ok = await storeDoctor({
      cwd: root,
      home: root,
      env: { TODO_CONTINUATION_DIR: join(root, "a", "b") },
    });
    expect(ok).toEqual([expect.objectContaining({ ok: true, check: "files" })]);
    // A file where the folder would go: no user can create the store there.
    writeFileSync(join(root, "file"), "");
    const [finding] = await storeDoctor({
      cwd: root,
      home: root,
      env: { TODO_CONTINUATION_DIR: join(root, "file", "store") },
    });
    expect(finding).toMatchObject({
      ok: false,
      message: expect.stringContaining(`${join(root, "file")} is not a folder`),
      fix: expect.stringContaining("TODO_CONTINUATION_DIR"),
    });
  });

  it("reaches PostgreSQL when configured, and names it when it does not answer", async () => {
    const [up] = await storeDoctor({
      cwd: "/",
      home: "/",
      env: { TODO_CONTINUATION_DATABASE_URL: TEST_DATABASE_URL },
    });
    expect(up).toMatchObject({ ok: true, check: "postgres" });
    const [down] = await storeDoctor({
      cwd: "/",
      home: "/",
      env: { TODO_CONTINUATION_DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" },
    });
    expect(down).toMatchObject({ ok: false, check: "postgres" });
    expect(down?.message).toContain("127.0.0.1:1/none is not reachable");
    expect(down?.message).not.toContain("nobody@");
  });
});
