import { describe, expect, it } from "vitest";
import { type ConfigLayer, effectiveFindings, settingOf } from "./effective-config.js";

const SYSTEM = "/etc/codex/config.toml";
const USER = "/home/u/.codex/config.toml";
const PROJECT = "/p/.codex/config.toml";
const SUB = "/p/sub/.codex/config.toml";

type Doc = Record<string, unknown>;
const hooks = (value: unknown): Doc => ({ features: { hooks: value } });
const plan = (value: unknown): Doc => ({ tools: { update_plan: { enabled: value } } });
const both = (...docs: Doc[]): Doc => ({
  features: Object.assign({}, ...docs.map((d) => d.features ?? {})),
  tools: Object.assign({}, ...docs.map((d) => d.tools ?? {})),
});

function layers(spec: {
  system?: Doc;
  user?: Doc;
  project?: Doc;
  sub?: Doc;
  trusted?: boolean;
}): ConfigLayer[] {
  const out: ConfigLayer[] = [];
  if (spec.system) out.push({ kind: "system", path: SYSTEM, doc: spec.system, active: true });
  out.push({ kind: "user", path: USER, doc: spec.user ?? {}, active: true });
  const trusted = spec.trusted ?? true;
  if (spec.project)
    out.push({ kind: "project", path: PROJECT, doc: spec.project, active: trusted });
  if (spec.sub) out.push({ kind: "project", path: SUB, doc: spec.sub, active: trusted });
  return out;
}

function verdict(spec: Parameters<typeof layers>[0]) {
  const findings = effectiveFindings(layers(spec));
  const of = (check: string) => findings.find((f) => f.check === check);
  return { hooks: of("hooks-feature"), plan: of("update-plan") };
}

describe("Codex effective config", () => {
  // [case, layers, hooks ok, file named for hooks, plan ok, file named for plan]
  const table: [
    string,
    Parameters<typeof layers>[0],
    boolean,
    string | null,
    boolean,
    string | null,
  ][] = [
    ["user install, nothing else", { user: plan(true) }, true, null, true, USER],
    [
      "user turns the hooks feature off",
      { user: both(hooks(false), plan(true)) },
      false,
      USER,
      true,
      USER,
    ],
    [
      "system turns it off, nobody turns it on",
      { system: hooks(false), user: plan(true) },
      false,
      SYSTEM,
      true,
      USER,
    ],
    [
      "user off, trusted project turns it back on",
      { user: hooks(false), project: both(hooks(true), plan(true)) },
      true,
      PROJECT,
      true,
      PROJECT,
    ],
    [
      "user off, untrusted project cannot turn it on",
      { user: hooks(false), project: hooks(true), trusted: false },
      false,
      USER,
      false,
      null,
    ],
    [
      "project turns the hooks feature off",
      { user: plan(true), project: hooks(false) },
      false,
      PROJECT,
      true,
      USER,
    ],
    [
      "user install, trusted project switches update_plan off",
      { user: plan(true), project: plan(false) },
      true,
      null,
      false,
      PROJECT,
    ],
    [
      "user install, untrusted project's switch is not loaded",
      { user: plan(true), project: plan(false), trusted: false },
      true,
      null,
      true,
      USER,
    ],
    [
      "project install, user switches update_plan off: project wins",
      { user: plan(false), project: plan(true) },
      true,
      null,
      true,
      PROJECT,
    ],
    [
      "system enables, user disables",
      { system: plan(true), user: plan(false) },
      true,
      null,
      false,
      USER,
    ],
    [
      "a deeper folder's config wins over the root's",
      { user: plan(true), project: plan(true), sub: both(plan(false), hooks(false)) },
      false,
      SUB,
      false,
      SUB,
    ],
    ["nobody enables update_plan", { user: {} }, true, null, false, null],
    [
      "a non-boolean switch is not taken as on",
      { user: both(hooks("yes"), plan("true")) },
      false,
      USER,
      false,
      USER,
    ],
  ];

  it.each(table)("%s", (_name, spec, hooksOk, hooksFile, planOk, planFile) => {
    const { hooks: h, plan: p } = verdict(spec);
    expect(h?.ok).toBe(hooksOk);
    expect(p?.ok).toBe(planOk);
    if (!hooksOk) {
      expect(h?.message).toContain(hooksFile);
      expect(h?.fix).toContain(hooksFile);
    }
    if (planFile !== null) expect(p?.message).toContain(planFile);
    if (!planOk && planFile !== null) expect(p?.fix).toContain(planFile);
    if (!planOk && planFile === null) expect(p?.fix).toBe("todo-continuation install codex");
  });

  it("names the enabling file a switch overrides", () => {
    const { plan: p } = verdict({ user: plan(true), project: plan(false) });
    expect(p?.message).toContain(`overrides the enabled = true in ${USER}`);
  });

  it("reports the layer that set a value and those it beat", () => {
    const s = settingOf(layers({ system: plan(true), user: plan(false), project: plan(true) }), [
      "tools",
      "update_plan",
      "enabled",
    ]);
    expect(s.layer?.path).toBe(PROJECT);
    expect(s.overridden.map((l) => l.path)).toEqual([USER, SYSTEM]);
  });
});
