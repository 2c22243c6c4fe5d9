import fc from "fast-check";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import {
  installedCommand,
  installHooksBlock,
  installTrustBlock,
  projectTrusted,
  trustedHashes,
  uninstallHooksBlock,
  uninstallTrustBlock,
} from "./config-block.js";
import { codexHookHash } from "./trust.js";

const PATH = "/home/u/.codex/config.toml";
const COMMAND = '"/usr/bin/node" "/pkg/dist/hosts/codex/hook-main.js"';

const USER_FILE = `# my settings
model = "gpt-6"   # aligned comment

[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "notify-send done"
`;

describe("Codex config blocks", () => {
  it("adds the hooks and update_plan after the user's text, leaving that text as it was", () => {
    const edit = installHooksBlock(USER_FILE, PATH, COMMAND);
    expect(edit.changed).toBe(true);
    expect(edit.text.startsWith(USER_FILE)).toBe(true);
    const doc = parse(edit.text) as {
      tools: { update_plan: { enabled: boolean } };
      hooks: Record<string, { matcher?: string; hooks: { command: string; timeout: number }[] }[]>;
    };
    expect(doc.tools.update_plan.enabled).toBe(true);
    expect(doc.hooks.Stop).toHaveLength(2);
    expect(doc.hooks.Stop?.[1]?.hooks[0]?.command).toBe(COMMAND);
    expect(doc.hooks.PostToolUse?.[0]?.matcher).toBe("^update_plan$");
    // Codex caps Interrupt hooks at 3 s and hashes the capped value.
    expect(doc.hooks.Interrupt?.[0]?.hooks[0]?.timeout).toBe(3);
    expect(Object.keys(doc.hooks).sort()).toEqual([
      "Interrupt",
      "PostToolUse",
      "Stop",
      "UserPromptSubmit",
    ]);
    expect(installedCommand(edit.text)).toBe(COMMAND);
  });

  it("keys the trust entries after the user's own groups", () => {
    const { trust } = installHooksBlock(USER_FILE, PATH, COMMAND);
    expect(trust.map((t) => t.key)).toEqual([
      `${PATH}:user_prompt_submit:0:0`,
      `${PATH}:post_tool_use:0:0`,
      `${PATH}:stop:1:0`,
      `${PATH}:interrupt:0:0`,
    ]);
    expect(trust[2]?.hash).toBe(codexHookHash({ event: "Stop", command: COMMAND, timeout: 30 }));
  });

  it("is idempotent, and rewrites the hooks when the command changes", () => {
    const once = installHooksBlock(USER_FILE, PATH, COMMAND);
    const twice = installHooksBlock(once.text, PATH, COMMAND);
    expect(twice.changed).toBe(false);
    expect(twice.text).toBe(once.text);
    expect(twice.trust).toEqual(once.trust);
    const moved = installHooksBlock(once.text, PATH, `${COMMAND} --preset omo`);
    expect(moved.changed).toBe(true);
    expect(installedCommand(moved.text)).toBe(`${COMMAND} --preset omo`);
    expect(moved.trust[0]?.hash).not.toBe(once.trust[0]?.hash);
    expect(moved.text.match(/>>> todo-continuation hooks/g)).toHaveLength(1);
  });

  it("keeps the keys when the user adds groups after our block", () => {
    const once = installHooksBlock(USER_FILE, PATH, COMMAND);
    const later = `${once.text}\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "x"\n`;
    const again = installHooksBlock(later, PATH, COMMAND);
    expect(again.changed).toBe(false);
    expect(again.trust.map((t) => t.key)).toEqual(once.trust.map((t) => t.key));
  });

  it("uninstall gives back the file byte for byte", () => {
    for (const original of [USER_FILE, "", "a = 1", "a = 1\n\n\n"]) {
      const installed = installHooksBlock(original, PATH, COMMAND).text;
      const removed = uninstallHooksBlock(installed);
      expect(removed.changed).toBe(true);
      expect(removed.text).toBe(original);
    }
    expect(uninstallHooksBlock(USER_FILE)).toEqual({ text: USER_FILE, changed: false });
  });

  it("leaves update_plan alone when the user already enabled it, and refuses to override a disabled one", () => {
    const enabled = "[tools.update_plan]\nenabled = true\n";
    const edit = installHooksBlock(enabled, PATH, COMMAND);
    expect(edit.text.match(/\[tools\.update_plan\]/g)).toHaveLength(1);
    expect(edit.changes.join("\n")).not.toContain("update_plan");
    expect(() =>
      installHooksBlock("[tools.update_plan]\nenabled = false\n", PATH, COMMAND),
    ).toThrow(/enabled = true.*nothing was changed/);
  });

  it("refuses a file that is not TOML, or one that would stop being TOML", () => {
    expect(() => installHooksBlock("model = ", PATH, COMMAND)).toThrow(/not valid TOML/);
    expect(() => installHooksBlock("hooks = { Stop = [] }\n", PATH, COMMAND)).toThrow(
      /with the hooks added is not valid TOML/,
    );
  });

  it("writes, reads back and removes the trust entries for one source file", () => {
    const { trust } = installHooksBlock("", "/p/.codex/config.toml", COMMAND);
    const user = '# mine\n[projects."/p"]\ntrust_level = "trusted"\n';
    const added = installTrustBlock(user, PATH, "/p/.codex/config.toml", trust);
    expect(added.changed).toBe(true);
    expect(added.text.startsWith(user)).toBe(true);
    const doc = parse(added.text) as Record<string, unknown>;
    const hashes = trustedHashes(doc);
    for (const entry of trust) expect(hashes.get(entry.key)).toBe(entry.hash);
    expect(projectTrusted(doc, "/p")).toBe(true);
    expect(projectTrusted(doc, "/q")).toBe(false);
    expect(installTrustBlock(added.text, PATH, "/p/.codex/config.toml", trust).changed).toBe(false);
    const q = installHooksBlock("", "/q/.codex/config.toml", COMMAND).trust;
    const other = installTrustBlock(added.text, PATH, "/q/.codex/config.toml", q);
    const removed = uninstallTrustBlock(other.text, "/p/.codex/config.toml");
    expect(removed.text).not.toContain("/p/.codex/config.toml");
    expect(removed.text).toContain("/q/.codex/config.toml");
    expect(
      uninstallTrustBlock(uninstallTrustBlock(removed.text, "/q/.codex/config.toml").text, "/x")
        .text,
    ).toBe(user);
  });

  it("keeps a trust entry Codex already wrote, and refuses one that trusts another hash", () => {
    const { trust } = installHooksBlock("", PATH, COMMAND);
    const first = trust[0];
    if (first === undefined) throw new Error("no trust entries");
    const own = `[hooks.state.${JSON.stringify(first.key)}]\ntrusted_hash = ${JSON.stringify(first.hash)}\n`;
    const added = installTrustBlock(own, PATH, PATH, trust);
    expect(added.text.match(new RegExp(first.hash, "g"))).toHaveLength(1);
    expect(trustedHashes(parse(added.text) as Record<string, unknown>).size).toBe(trust.length);
    const stale = own.replace(first.hash, "sha256:old");
    expect(() => installTrustBlock(stale, PATH, PATH, trust)).toThrow(/another hash/);
  });
});

describe("Codex config blocks, for any user file", () => {
  const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
  const line = fc.oneof(
    fc.tuple(key, fc.string({ maxLength: 12 })).map(([k, v]) => `${k} = ${JSON.stringify(v)}`),
    fc.tuple(key, fc.integer()).map(([k, v]) => `${k} = ${v}`),
    fc.string({ maxLength: 20 }).map((c) => `# ${c.replace(/[\n\r]/g, " ")}`),
    fc.constant(""),
  );
  const section = fc.tuple(fc.option(key, { nil: undefined }), fc.array(line, { maxLength: 4 }));
  const file = fc
    .array(section, { maxLength: 4 })
    .map((sections) => {
      const seen = new Set<string>();
      return sections
        .map(([name, body]) => {
          const header = name === undefined || seen.has(name) ? [] : [`[t_${name}]`];
          if (name !== undefined) seen.add(name);
          const keys = new Set<string>();
          const unique = body.filter((l) => {
            const k = l.split(" = ")[0] ?? "";
            if (!l.includes(" = ")) return true;
            if (keys.has(k)) return false;
            keys.add(k);
            return true;
          });
          return [...header, ...unique].join("\n");
        })
        .join("\n");
    })
    .filter((text) => {
      try {
        parse(text);
        return true;
      } catch {
        return false;
      }
    });

  it("installs idempotently and uninstalls back to the same text", () => {
    fc.assert(
      fc.property(file, (original) => {
        const once = installHooksBlock(original, PATH, COMMAND);
        expect(installHooksBlock(once.text, PATH, COMMAND).changed).toBe(false);
        const trust = installTrustBlock(once.text, PATH, PATH, once.trust);
        const back = uninstallTrustBlock(uninstallHooksBlock(trust.text).text, PATH).text;
        const expected = original === "" || original.endsWith("\n") ? original : `${original}\n`;
        expect(back).toBe(expected);
      }),
    );
  });
});
