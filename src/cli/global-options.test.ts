import { describe, expect, it } from "vitest";
import { UsageError } from "./errors.js";
import { storeTarget } from "./global-options.js";

const none = { dir: undefined, databaseUrl: undefined };

describe("storeTarget", () => {
  it("uses the file store's own default when nothing is named", () => {
    expect(storeTarget(none, {})).toEqual({ kind: "file", dir: undefined, source: "default" });
  });

  it("lets flags beat the environment", () => {
    const env = { TODO_CONTINUATION_DATABASE_URL: "postgres://env/db" };
    expect(storeTarget({ ...none, dir: "/d" }, env)).toMatchObject({ kind: "file", dir: "/d" });
    expect(storeTarget({ ...none, databaseUrl: "postgres://flag/db" }, env)).toMatchObject({
      kind: "postgres",
      connectionString: "postgres://flag/db",
    });
    expect(storeTarget(none, env)).toMatchObject({
      kind: "postgres",
      source: "TODO_CONTINUATION_DATABASE_URL",
    });
    expect(storeTarget(none, { TODO_CONTINUATION_DATABASE_URL: " " }).kind).toBe("file");
  });

  it("refuses two stores, or an empty value, as bad usage", () => {
    expect(() => storeTarget({ dir: "/d", databaseUrl: "postgres://h/db" }, {})).toThrow(
      UsageError,
    );
    expect(() => storeTarget({ ...none, dir: "" }, {})).toThrow(/--dir: expected a folder path/);
    expect(() => storeTarget({ ...none, databaseUrl: "" }, {})).toThrow(/--database-url/);
  });
});
