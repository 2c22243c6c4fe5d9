import type { DoctorFinding } from "../doctor.js";

/**
 * Codex's effective config, as 0.169.0 merges it (measured with app-server
 * `config/read` and `includeLayers`): the system file, the user's file, then
 * each `.codex/config.toml` from the project root down to the working folder,
 * a later layer's key winning over an earlier one's. Project layers count only
 * in a trusted project; otherwise Codex loads them disabled. `-c` overrides on
 * the command line are not visible here.
 */

export interface ConfigLayer {
  kind: "system" | "user" | "project";
  path: string;
  doc: Record<string, unknown>;
  /** False for a project layer Codex does not load (the project is not trusted). */
  active: boolean;
}

/** A key's effective value and the layer that set it (null: no layer sets it). */
export interface Setting {
  value: unknown;
  layer: ConfigLayer | null;
  /** Active layers that set the key too but lost to `layer`, highest first. */
  overridden: ConfigLayer[];
}

function lookup(doc: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = doc;
  for (const key of path) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The value of `path` after merging `layers` (lowest precedence first). */
export function settingOf(layers: readonly ConfigLayer[], path: readonly string[]): Setting {
  const setters = layers.filter((l) => l.active && lookup(l.doc, path) !== undefined).reverse();
  const [top, ...rest] = setters;
  return top === undefined
    ? { value: undefined, layer: null, overridden: [] }
    : { value: lookup(top.doc, path), layer: top, overridden: rest };
}

const HOST = "codex";

function where(setting: Setting): string {
  if (setting.layer === null) return "";
  const over = setting.overridden.length === 0 ? "" : `, over ${setting.overridden[0]?.path}`;
  return ` (${setting.layer.path}${over})`;
}

/**
 * What our hooks need from the effective config, each as a finding that
 * names the file that switches it off and how to switch it back on.
 */
export function effectiveFindings(layers: readonly ConfigLayer[]): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  const hooks = settingOf(layers, ["features", "hooks"]);
  if (hooks.value === false) {
    out.push({
      host: HOST,
      check: "hooks-feature",
      ok: false,
      message: `features.hooks = false in ${hooks.layer?.path}: Codex runs no hooks at all, so no nudge ever comes`,
      fix: `delete hooks = false under [features] in ${hooks.layer?.path}, or set it to true`,
    });
  } else if (hooks.value === undefined || hooks.value === true) {
    out.push({
      host: HOST,
      check: "hooks-feature",
      ok: true,
      message: `hooks feature on${hooks.value === true ? where(hooks) : " (the default)"}`,
    });
  } else {
    out.push({
      host: HOST,
      check: "hooks-feature",
      ok: false,
      message: `features.hooks in ${hooks.layer?.path} is ${JSON.stringify(hooks.value)}, not true or false`,
      fix: `set hooks = true under [features] in ${hooks.layer?.path}`,
    });
  }
  const plan = settingOf(layers, ["tools", "update_plan", "enabled"]);
  if (plan.value === true) {
    out.push({
      host: HOST,
      check: "update-plan",
      ok: true,
      message: `update_plan tool enabled${where(plan)}`,
    });
  } else if (plan.layer === null) {
    out.push({
      host: HOST,
      check: "update-plan",
      ok: false,
      message:
        "no loaded config sets tools.update_plan.enabled = true: Codex offers the model no plan tool, so there is no list to continue",
      fix: "todo-continuation install codex",
    });
  } else {
    const beaten = plan.overridden.find(
      (l) => lookup(l.doc, ["tools", "update_plan", "enabled"]) === true,
    );
    out.push({
      host: HOST,
      check: "update-plan",
      ok: false,
      message: `tools.update_plan.enabled = ${JSON.stringify(plan.value)} in ${plan.layer.path}${beaten ? ` overrides the enabled = true in ${beaten.path}` : ""}: Codex offers the model no plan tool, so there is no list to continue`,
      fix: `set enabled = true under [tools.update_plan] in ${plan.layer.path}, or delete that setting`,
    });
  }
  return out;
}
