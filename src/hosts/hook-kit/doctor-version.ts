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
