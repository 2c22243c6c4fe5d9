import { describe, expect, it } from "vitest";
import { folderTrustOf, hookTrustKey, trustOurHooks, untrustOurHooks } from "./trust.js";

describe("hook trust", () => {
  it("lists exactly our current command for the project, keeping other entries", () => {
    const start = { "/p": ["notify:./notify.sh", hookTrustKey("node /old.js")], "/q": ["x:y"] };
    const trusted = trustOurHooks(start, "/p", ["node /new.js"]);
    expect(trusted.changed).toBe(true);
    expect(trusted.value).toEqual({
      "/p": ["notify:./notify.sh", "todo-continuation:node /new.js"],
      "/q": ["x:y"],
    });
    expect(trustOurHooks(trusted.value, "/p", ["node /new.js"]).changed).toBe(false);
    const untrusted = untrustOurHooks(trusted.value, "/p");
    expect(untrusted.value).toEqual({ "/p": ["notify:./notify.sh"], "/q": ["x:y"] });
    expect(untrustOurHooks({ "/p": [hookTrustKey("c")] }, "/p").value).toEqual({});
    expect(untrustOurHooks({}, "/p").changed).toBe(false);
  });
});

describe("folderTrustOf", () => {
  it("applies the most specific rule, TRUST_PARENT covering the parent", () => {
    expect(folderTrustOf({ "/a/b": "TRUST_FOLDER" }, "/a/b/c")).toBe("trusted");
    expect(folderTrustOf({ "/a/b": "TRUST_PARENT" }, "/a/x")).toBe("trusted");
    expect(folderTrustOf({ "/a": "TRUST_FOLDER", "/a/b": "DO_NOT_TRUST" }, "/a/b")).toBe(
      "untrusted",
    );
    expect(folderTrustOf({ "/a/b": "TRUST_FOLDER" }, "/a/bc")).toBe("unknown");
    expect(folderTrustOf(null, "/a")).toBe("unknown");
  });
});
