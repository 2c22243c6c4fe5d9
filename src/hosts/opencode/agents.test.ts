import { describe, expect, it } from "vitest";
import { AgentDirectory, generalEditAction, judgeAgent } from "./agents.js";

const rule = (permission: string, action: string, pattern = "*") => ({
  permission,
  pattern,
  action,
});

describe("generalEditAction", () => {
  it("applies the last matching rule of a rule list", () => {
    expect(generalEditAction([rule("*", "allow")])).toBe("allow");
    expect(generalEditAction([rule("*", "allow"), rule("edit", "deny")])).toBe("deny");
    expect(generalEditAction([rule("edit", "deny"), rule("*", "allow")])).toBe("allow");
    expect(generalEditAction([rule("*", "deny"), rule("bash", "allow")])).toBe("deny");
    expect(generalEditAction([rule("ed*", "ask")])).toBe("ask");
  });

  it("does not let a rule for some paths grant editing in general", () => {
    expect(
      generalEditAction([
        rule("*", "allow"),
        rule("edit", "deny"),
        rule("edit", "allow", ".opencode/plans/*.md"),
      ]),
    ).toBe("deny");
  });

  it("reads the config's object form", () => {
    expect(generalEditAction({ edit: "deny" })).toBe("deny");
    expect(generalEditAction({ edit: { "*": "deny", "docs/*": "allow" } })).toBe("deny");
    expect(generalEditAction({ "*": "allow" })).toBe("allow");
    expect(generalEditAction({ bash: "deny" })).toBeNull();
  });

  it("says nothing about what it cannot read", () => {
    expect(generalEditAction(undefined)).toBeNull();
    expect(generalEditAction([null, { permission: "edit", action: "maybe" }])).toBeNull();
  });
});

describe("judgeAgent", () => {
  it("excludes skipped agents, subagents, read-only agents and unreadable records", () => {
    const skip = ["compaction"];
    expect(judgeAgent({ name: "build", permission: [rule("*", "allow")] }, skip).excluded).toBe(
      false,
    );
    expect(judgeAgent({ name: "compaction" }, skip)).toEqual({
      excluded: true,
      why: 'agent "compaction" is on the skip list',
    });
    expect(judgeAgent({ name: "explore", mode: "subagent" }, skip).excluded).toBe(true);
    expect(judgeAgent({ name: "plan", permission: [rule("edit", "deny")] }, skip).excluded).toBe(
      true,
    );
    expect(judgeAgent({ name: "old", tools: { write: false } }, skip).excluded).toBe(true);
    expect(judgeAgent("build", skip).excluded).toBe(true);
  });
});

describe("AgentDirectory", () => {
  it("fetches once, refetches for an agent it does not know, and fails closed", async () => {
    let calls = 0;
    let list: unknown = [{ name: "build" }];
    const directory = new AgentDirectory({
      fetchAgents: async () => {
        calls++;
        return list;
      },
      skipAgents: ["plan"],
    });
    expect((await directory.judge("build")).excluded).toBe(false);
    expect((await directory.judge("build")).excluded).toBe(false);
    expect(calls).toBe(1);
    expect(await directory.judge("custom")).toEqual({
      excluded: true,
      why: 'agent "custom" is not in OpenCode\'s agent list',
    });
    expect(calls).toBe(2);
    list = [{ name: "build" }, { name: "custom" }];
    expect((await directory.judge("custom")).excluded).toBe(false);
    expect((await directory.judge("plan")).excluded).toBe(true);
    expect((await directory.judge(undefined)).excluded).toBe(true);
    list = { not: "a list" };
    expect((await directory.judge("other")).why).toMatch(/could not be read/);
  });
});
