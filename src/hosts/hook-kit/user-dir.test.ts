import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { hostUserDir, userHome } from "./user-dir.js";

describe("userHome", () => {
  it("is $HOME when set, else the account's home", () => {
    expect(userHome({ HOME: "/h" })).toBe("/h");
    expect(userHome({ HOME: "  " })).toBe(homedir());
    expect(userHome({})).toBe(homedir());
  });
});

describe("hostUserDir", () => {
  it("is the variable's folder when set, else the default under the home", () => {
    expect(hostUserDir({ HOME: "/h", X_HOME: "/x" }, "X_HOME", [".x"])).toBe("/x");
    expect(hostUserDir({ HOME: "/h" }, "X_HOME", [".x", "agent"])).toBe("/h/.x/agent");
    expect(hostUserDir({ HOME: "/h", X_HOME: " " }, "X_HOME", [".x"])).toBe("/h/.x");
  });

  it("takes a relative value from the current folder, trimmed", () => {
    expect(hostUserDir({ HOME: "/h", X_HOME: " rel/x " }, "X_HOME", [".x"])).toBe(resolve("rel/x"));
  });

  it("reads a leading ~ as the home only for a host that expands it", () => {
    expect(hostUserDir({ HOME: "/h", X_HOME: "~/x" }, "X_HOME", [".x"], true)).toBe(
      join("/h", "x"),
    );
    expect(hostUserDir({ HOME: "/h", X_HOME: "~/x" }, "X_HOME", [".x"])).toBe(resolve("~/x"));
  });
});
