import { describe, expect, it } from "vitest";
import { explainConnectionError, PostgresUnavailableError } from "./errors.js";

const target = { host: "db.example", port: "5433", database: "todos", user: "app" };

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe("explainConnectionError", () => {
  it.each([
    ["ECONNREFUSED", /cannot reach PostgreSQL at db\.example:5433 \(ECONNREFUSED\)/],
    ["ENOTFOUND", /cannot reach PostgreSQL at db\.example:5433/],
    ["28P01", /refused user "app"/],
    ["3D000", /database "todos" does not exist/],
    ["53300", /no free connections/],
    ["57P03", /still starting up/],
  ])("explains %s", (code, pattern) => {
    const cause = withCode("raw", code);
    const explained = explainConnectionError(cause, target);
    expect(explained).toBeInstanceOf(PostgresUnavailableError);
    expect(explained?.message).toMatch(pattern);
    expect(explained?.cause).toBe(cause);
    expect(explained?.code).toBe(code);
  });

  it("explains a connection timeout", () => {
    const explained = explainConnectionError(new Error("timeout expired"), target);
    expect(explained?.message).toMatch(/no answer from PostgreSQL at db\.example:5433/);
  });

  it("leaves query errors alone", () => {
    expect(explainConnectionError(withCode("syntax error", "42601"), target)).toBeNull();
    expect(explainConnectionError("odd", target)).toBeNull();
  });

  it("passes an explained error through unchanged", () => {
    const once = explainConnectionError(withCode("raw", "ECONNREFUSED"), target);
    expect(explainConnectionError(once, target)).toBe(once);
  });
});
