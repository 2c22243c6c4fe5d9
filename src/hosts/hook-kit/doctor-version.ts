import type { DoctorFinding } from "../../core/doctor.js";
import { compareVersions, formatVersion, type Version, versionOf } from "./version.js";

/** A host's version gate, as the doctor reports it. */
export interface VersionGate {
  /** The host as the doctor names it: `claude-code`. */
  host: string;
  /** The program as people call it: `Claude Code`. */
  name: string;
  /** The oldest version the integration works with (`x.y.z`). */
  min: string;
  /** Why that one: `the oldest supported`. */
  minReason: string;
  /** When no program answers `--version`: what was found, and the fix. */
  missing: { message: string; fix: string };
  /** The fix for a version older than `min`. */
  upgrade: string;
  /** Defects of ranges of its releases that the doctor names (see {@link versionFindings}). */
  flaws?: readonly VersionFlaw[];
}

/** The one `version` finding: missing, too old, or fine. */
export function versionFinding(gate: VersionGate, version: Version | null): DoctorFinding {
  const base = { host: gate.host, check: "version" };
  if (version === null) return { ...base, ok: false, ...gate.missing };
  const text = `${gate.name} ${formatVersion(version)}`;
  if (compareVersions(version, versionOf(gate.min)) < 0) {
    return {
      ...base,
      ok: false,
      message: `${text} is older than ${gate.min}, ${gate.minReason}`,
      fix: gate.upgrade,
    };
  }
  return { ...base, ok: true, message: `${text} (needs ${gate.min} or newer)` };
}

/**
 * A defect of a range of a host's releases that keeps our hooks from running in some use, which
 * the user can get around: the doctor names it for a version inside the range.
 */
export interface VersionFlaw {
  /** The first release with the defect, and the first without it (`x.y.z`). */
  from: string;
  fixedIn: string;
  /** Only installs for this target alone meet it: one for another target as well gets round it. */
  target?: string;
  /** `NAME=value`: with this variable set, the defect does not arise. */
  liftedBy?: string;
  /** What goes wrong, said after the program's name and version. */
  message: string;
  fix: string;
}

/** Where the doctor looks: the user's environment, the targets ours is installed for. */
export interface FlawContext {
  env: Record<string, string | undefined>;
  targets: readonly string[];
}

/** The `version` finding, then one for each of the gate's flaws that `version` and `ctx` meet. */
export function versionFindings(
  gate: VersionGate,
  version: Version | null,
  ctx: FlawContext,
): DoctorFinding[] {
  const first = versionFinding(gate, version);
  if (version === null || !first.ok) return [first];
  const meets = (flaw: VersionFlaw) => {
    const [name = "", value] = flaw.liftedBy?.split("=") ?? [];
    return (
      compareVersions(version, versionOf(flaw.from)) >= 0 &&
      compareVersions(version, versionOf(flaw.fixedIn)) < 0 &&
      (flaw.target === undefined ||
        (ctx.targets.length > 0 && ctx.targets.every((t) => t === flaw.target))) &&
      (flaw.liftedBy === undefined || ctx.env[name] !== value)
    );
  };
  const flawed = (gate.flaws ?? []).filter(meets).map((flaw) => ({
    host: gate.host,
    check: "version",
    ok: false,
    message: `${gate.name} ${formatVersion(version)} ${flaw.message}`,
    fix: flaw.fix,
  }));
  return [first, ...flawed];
}

/**
 * A gate's `missing`: ours is installed, and no `bin` on PATH answers `bin --version`. `what`:
 * what of ours is installed, with its verb (`hooks are`, `plugin is`).
 */
export function missingProgram(what: string, bin: string, fix: string): VersionGate["missing"] {
  return {
    message: `the ${what} installed, but no \`${bin}\` on PATH answers \`${bin} --version\``,
    fix,
  };
}
