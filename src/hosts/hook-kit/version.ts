import { execFile } from "node:child_process";

/**
 * Host program versions: reading `<bin> --version` and comparing dotted
 * numbers. Shared by the installers (write only what the host accepts) and
 * the doctor (is the installed host new enough).
 */

/** `major.minor.patch` as numbers; missing parts count as 0. */
export type Version = readonly [number, number, number];

/** The first `x.y.z` (or `x.y`) in a text, e.g. `2.1.75 (Claude Code)` -> [2, 1, 75]. */
export function parseVersion(text: string): Version | null {
  const match = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (match === null) return null;
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

export function formatVersion(version: Version): string {
  return version.join(".");
}

/** `x.y.z` from a string known to be one (constants); throws on a typo. */
export function versionOf(text: string): Version {
  const version = parseVersion(text);
  if (version === null) throw new TypeError(`not a version: ${JSON.stringify(text)}`);
  return version;
}

/**
 * Runs `<bin> --version` and reads the version it prints (on stdout, or on
 * stderr as pi does); null when the program is missing, fails, or prints no
 * version (within 20 seconds).
 */
export function detectVersion(
  bin: string,
  env: Record<string, string | undefined>,
): Promise<Version | null> {
  return new Promise((resolve) => {
    execFile(
      bin,
      ["--version"],
      { env: env as NodeJS.ProcessEnv, timeout: 20_000, encoding: "utf8" },
      (error, stdout, stderr) =>
        resolve(error ? null : parseVersion(`${String(stdout)}\n${String(stderr)}`)),
    );
  });
}
