/**
 * What `todo-continuation doctor` asks of each host integration. Each host
 * folder exports one `DoctorCheck` (in its own `doctor.ts`); the CLI runs every
 * host's check and prints the findings, so adding a host never edits the
 * command itself beyond one registry line.
 */

/** One thing the doctor looked at. */
export interface DoctorFinding {
  /** The host as the user types it: `claude-code`, `opencode`, `pi`, `codex`, `gemini`, or `store`. */
  host: string;
  /** A short name for what was checked: `installed`, `version`, `hooks`, `loadable`, `store`, ... */
  check: string;
  ok: boolean;
  /** What was found, in words a user can act on. */
  message: string;
  /** When not ok: the one command (or edit) that fixes it. */
  fix?: string;
  /** Set on the finding that says the host is there but nothing of ours is installed for it. */
  notInstalled?: true;
}

/** Where to look. Tests pass temp folders; the CLI passes the real ones. */
export interface DoctorContext {
  /** The project folder (the CLI's working directory). */
  cwd: string;
  /** The user's home folder. */
  home: string;
  env: Record<string, string | undefined>;
}

/**
 * A host's check. A host that is not installed anywhere returns no findings
 * (the doctor says nothing about hosts the user does not use); it never throws
 * for a broken install: that is a finding.
 */
export type DoctorCheck = (context: DoctorContext) => Promise<DoctorFinding[]>;
