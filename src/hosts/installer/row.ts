import type { DoctorCheck } from "../../core/doctor.js";

/**
 * One host in the install table: what `install <host>`, `uninstall <host>`
 * and `doctor` need to know of it. The row itself is data and loads nothing;
 * the host's code is imported only when the command runs for that host.
 */

/** The command line a host's installer takes. */
export interface InstallFlags {
  /** The files (or folders) it can write, each a boolean flag; the first is the default. */
  targets: readonly string[];
  /** What two targets are, in the refusal of both at once: "settings files". */
  targetsName: string;
  /** Options that take a value (`--project-dir <path>`), besides `--help`. */
  options: readonly string[];
}

/** A command line read against `InstallFlags`. */
export interface InstallArgs {
  target: string;
  /** The values of the row's options, by name, as given. */
  values: Readonly<Record<string, string | undefined>>;
  help: boolean;
}

/** What an installer is told besides its own options. */
export interface InstallerContext {
  env: Record<string, string | undefined>;
  out: (line: string) => void;
}

/** The host's side of a row, loaded on demand. */
export interface HostInstaller<O = unknown> {
  usage: string;
  /** The installer's options from a parsed command line; throws on a bad value. */
  options: (args: InstallArgs, cwd: string) => O;
  install: (options: O & InstallerContext) => Promise<unknown>;
  uninstall: (options: O & InstallerContext) => Promise<unknown>;
}

/** An installer of any option type: the table holds one per host, each its own. */
// biome-ignore lint/suspicious/noExplicitAny: each row's options are its host's own type
export type AnyHostInstaller = HostInstaller<any>;

export interface InstallerRow {
  /** The host as the user types it. */
  host: string;
  /** Other names the command accepts for it. */
  aliases: readonly string[];
  flags: InstallFlags;
  load: () => Promise<AnyHostInstaller>;
  doctor: () => Promise<DoctorCheck>;
}
