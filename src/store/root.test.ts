import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveStoreRoot } from "./root.js";

const home = "/home/u";
const cwd = "/work/project";

describe("resolveStoreRoot", () => {
  it("prefers the explicit option", () => {
    const env = { TODO_CONTINUATION_DIR: "/env/dir", XDG_STATE_HOME: "/xdg" };
    expect(resolveStoreRoot("/opt/data", { env, home, cwd })).toBe("/opt/data");
  });

  it("falls back to TODO_CONTINUATION_DIR", () => {
    const env = { TODO_CONTINUATION_DIR: "/env/dir", XDG_STATE_HOME: "/xdg" };
    expect(resolveStoreRoot(undefined, { env, home, cwd })).toBe("/env/dir");
  });

  it("falls back to the XDG state directory", () => {
    expect(resolveStoreRoot(undefined, { env: { XDG_STATE_HOME: "/xdg" }, home, cwd })).toBe(
      join("/xdg", "todo-continuation"),
    );
  });

  it("defaults to ~/.local/state/todo-continuation", () => {
    expect(resolveStoreRoot(undefined, { env: {}, home, cwd })).toBe(
      join(home, ".local", "state", "todo-continuation"),
    );
  });

  it("treats empty values as unset and ignores a relative XDG_STATE_HOME", () => {
    const env = { TODO_CONTINUATION_DIR: "  ", XDG_STATE_HOME: "relative/state" };
    expect(resolveStoreRoot("", { env, home, cwd })).toBe(
      join(home, ".local", "state", "todo-continuation"),
    );
  });

  it("expands ~ and resolves relative paths against the working directory", () => {
    expect(resolveStoreRoot("~/data", { env: {}, home, cwd })).toBe(join(home, "data"));
    expect(resolveStoreRoot(".todo-continuation", { env: {}, home, cwd })).toBe(
      resolve(cwd, ".todo-continuation"),
    );
  });

  it("reads the real process environment by default", () => {
    const previous = process.env.TODO_CONTINUATION_DIR;
    process.env.TODO_CONTINUATION_DIR = "/from/process/env";
    try {
      expect(resolveStoreRoot()).toBe("/from/process/env");
    } finally {
      if (previous === undefined) delete process.env.TODO_CONTINUATION_DIR;
      else process.env.TODO_CONTINUATION_DIR = previous;
    }
  });
});
