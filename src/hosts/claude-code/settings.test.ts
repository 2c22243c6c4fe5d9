import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  HOOK_SPECS,
  installedCommand,
  mergeHooks,
  removeHooks,
  SettingsError,
} from "./settings.js";

const ours = '"/usr/bin/node" "/opt/todo-continuation/dist/hook/main.cjs" hook claude-code';
const theirs = { type: "command", command: "echo stop" };

describe("mergeHooks", () => {
  it("adds one handler per event to empty settings", () => {
    const { settings, changes } = mergeHooks({}, ours);
    expect(changes).toHaveLength(HOOK_SPECS.length);
    expect(installedCommand(settings)).toBe(ours);
    const hooks = settings.hooks as Record<string, { matcher?: string; hooks: unknown[] }[]>;
    expect(hooks.PostToolUse).toEqual([
      {
        matcher: "TodoWrite|TaskCreate|TaskUpdate",
        hooks: [{ type: "command", command: ours, timeout: 30 }],
      },
    ]);
    expect(hooks.SessionStart?.[0]?.matcher).toBe("resume");
    expect(hooks.Stop?.[0]).toEqual({ hooks: [{ type: "command", command: ours, timeout: 30 }] });
  });

  it("keeps every other hook and setting, and is idempotent", () => {
    const before = {
      model: "x",
      hooks: { Stop: [{ hooks: [theirs] }], PreToolUse: [{ matcher: "Bash", hooks: [theirs] }] },
    };
    const first = mergeHooks(before, ours);
    expect(first.settings.model).toBe("x");
    const hooks = first.settings.hooks as Record<string, unknown[]>;
    expect(hooks.PreToolUse).toEqual(before.hooks.PreToolUse);
    expect(hooks.Stop?.[0]).toEqual({ hooks: [theirs] });
    const second = mergeHooks(first.settings, ours);
    expect(second.changes).toEqual([]);
    expect(second.settings).toEqual(first.settings);
    expect(before.hooks.Stop).toEqual([{ hooks: [theirs] }]);
  });

  it("updates our command in place and drops our duplicates", () => {
    const old = ours.replace("hook claude-code", "hook claude-code --preset pi");
    const start = {
      hooks: {
        Stop: [
          { hooks: [theirs, { type: "command", command: old }] },
          { hooks: [{ type: "command", command: old }] },
        ],
        SubagentStop: [{ hooks: [{ type: "command", command: old }, theirs] }],
      },
    };
    const { settings, changes } = mergeHooks(start, ours);
    const hooks = settings.hooks as Record<string, unknown[]>;
    expect(hooks.Stop).toEqual([
      { hooks: [theirs, { type: "command", command: ours, timeout: 30 }] },
    ]);
    expect(hooks.SubagentStop).toEqual([{ hooks: [theirs] }]);
    expect(changes).toContain("updated Stop hook");
    expect(changes.some((c) => c.includes("SubagentStop") && c.includes("no longer used"))).toBe(
      true,
    );
  });

  it("refuses settings it cannot merge into, naming the field", () => {
    expect(() => mergeHooks([], ours)).toThrow(SettingsError);
    expect(() => mergeHooks({ hooks: [] }, ours)).toThrow(
      /"hooks" must be an object, got an array/,
    );
    expect(() => mergeHooks({ hooks: { Stop: {} } }, ours)).toThrow(
      /"hooks\.Stop" must be an array/,
    );
    expect(() => mergeHooks({ hooks: { Stop: [{ hooks: "x" }] } }, ours)).toThrow(
      /"hooks\.Stop\[0\]\.hooks" must be an array/,
    );
  });
});

describe("removeHooks", () => {
  it("removes only ours and tidies what it emptied", () => {
    const installed = mergeHooks(
      { hooks: { Stop: [{ hooks: [theirs] }] }, env: { A: "1" } },
      ours,
    ).settings;
    const { settings, changes } = removeHooks(installed);
    expect(settings).toEqual({ hooks: { Stop: [{ hooks: [theirs] }] }, env: { A: "1" } });
    expect(changes).toHaveLength(HOOK_SPECS.length);
    expect(removeHooks(settings).changes).toEqual([]);
    expect(removeHooks(mergeHooks({}, ours).settings).settings).toEqual({});
  });

  it("round-trips any foreign hooks untouched", () => {
    // Install then uninstall may only drop event keys whose lists were empty.
    const withoutEmpty = (settings: { hooks?: Record<string, unknown[]> }) => {
      const hooks = Object.fromEntries(
        Object.entries(settings.hooks ?? {}).filter(([, v]) => v.length > 0),
      );
      return Object.keys(hooks).length === 0 ? {} : { hooks };
    };
    const handler = fc.record({ type: fc.constant("command"), command: fc.string() });
    const group = fc.record({
      matcher: fc.option(fc.string(), { nil: undefined }),
      hooks: fc.array(handler, { maxLength: 3 }),
    });
    const event = fc.constantFrom(
      "Stop",
      "PostToolUse",
      "UserPromptSubmit",
      "PreToolUse",
      "Notification",
    );
    fc.assert(
      fc.property(fc.dictionary(event, fc.array(group, { maxLength: 3 })), (hooks) => {
        const clean = JSON.parse(JSON.stringify({ hooks }));
        const removed = removeHooks(mergeHooks(clean, ours).settings).settings;
        expect(withoutEmpty(JSON.parse(JSON.stringify(removed)))).toEqual(withoutEmpty(clean));
      }),
    );
  });
});
