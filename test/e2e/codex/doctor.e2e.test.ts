import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodexDoctor } from "../../../src/hosts/codex/doctor.js";
import { textReply } from "../support/responses-server.js";
import { type CodexWorld, codexWorld, killCodex } from "./codex-world.js";

/**
 * The doctor's view of Codex's effective config against the real Codex's
 * own: `hooks/list` (which hooks it would run) and `config/read` with its
 * layers (which file wins), on the same files.
 */

const worlds: CodexWorld[] = [];
afterEach(async () => {
  killCodex();
  await Promise.all(worlds.splice(0).map((w) => w.close()));
});

type Layer = { name: { type: string; file?: string; dotCodexFolder?: string }; config: unknown };

async function codexSees(w: CodexWorld, cwd: string) {
  const app = await w.appServer();
  try {
    const hooks = await app.request<{ data: { hooks: unknown[] }[] }>("hooks/list", {
      cwds: [cwd],
    });
    const config = await app.request<{ layers: Layer[] }>("config/read", {
      cwd,
      includeLayers: true,
    });
    return { hooks: hooks.data.flatMap((d) => d.hooks).length, layers: config.layers };
  } finally {
    await app.close();
  }
}

/** The file of the highest layer that sets tools.update_plan.enabled, and its value. */
function planSetter(layers: Layer[]): [string, unknown] | null {
  for (const layer of layers) {
    const value = (layer.config as { tools?: { update_plan?: { enabled?: unknown } } } | null)
      ?.tools?.update_plan?.enabled;
    if (value !== undefined) {
      const file = layer.name.file ?? join(layer.name.dotCodexFolder ?? "", "config.toml");
      return [file, value];
    }
  }
  return null;
}

describe("Codex doctor against the real Codex", () => {
  it("fails exactly where Codex itself loses the hooks or the plan tool", async () => {
    const w = await codexWorld(() => textReply("x"));
    worlds.push(w);
    const doctor = createCodexDoctor({ version: async () => "0.169.0" });
    const failing = async (cwd: string) =>
      (await doctor({ cwd, home: w.env.HOME as string, env: w.env }))
        .filter((f) => !f.ok)
        .map((f) => [f.check, f.message]);

    expect((await codexSees(w, w.project)).hooks).toBe(4);
    expect(await failing(w.project)).toEqual([]);

    // The user's config switches the hooks feature off: Codex lists no hooks.
    const user = readFileSync(w.userConfig, "utf8");
    writeFileSync(w.userConfig, user.replace("[features]\n", "[features]\nhooks = false\n"));
    expect((await codexSees(w, w.project)).hooks).toBe(0);
    const off = await failing(w.project);
    expect(off.map(([check]) => check)).toEqual(["hooks-feature"]);
    expect(off[0]?.[1]).toContain(w.userConfig);

    // The trusted project turns it back on: Codex lists them again.
    const projectConfig = join(w.project, ".codex", "config.toml");
    writeFileSync(
      projectConfig,
      `[features]\nhooks = true\n\n${readFileSync(projectConfig, "utf8")}`,
    );
    expect((await codexSees(w, w.project)).hooks).toBe(4);
    expect(await failing(w.project)).toEqual([]);

    // A deeper folder's own config switches update_plan off for sessions started there.
    const sub = join(w.project, "pkg");
    mkdirSync(join(sub, ".codex"), { recursive: true });
    const subConfig = join(sub, ".codex", "config.toml");
    writeFileSync(subConfig, "[tools.update_plan]\nenabled = false\n");
    expect(planSetter((await codexSees(w, sub)).layers)).toEqual([subConfig, false]);
    const deep = await failing(sub);
    expect(deep.map(([check]) => check)).toEqual(["update-plan"]);
    expect(deep[0]?.[1]).toContain(subConfig);
    expect(planSetter((await codexSees(w, w.project)).layers)).toEqual([projectConfig, true]);
  }, 180_000);
});
