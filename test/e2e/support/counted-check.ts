import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { DecisionLogEntry } from "../../../src/core/types.js";

/**
 * A project check that always fails and counts its runs in a file outside the
 * project, so counting never changes the tree the check fingerprints.
 */
export interface CountedCheck {
  /** The `verify.command`. */
  command: string;
  /** How many times the check has run so far. */
  runs(): number;
  /** Removes the counting folder. */
  dispose(): void;
}

export function countedFailingCheck(): CountedCheck {
  const outside = mkdtempSync(join(tmpdir(), "tc-check-runs-"));
  const file = join(outside, "check-runs.txt");
  return {
    command: `echo run >> ${file}; exit 1`,
    runs: () =>
      existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0,
    dispose: () => rmSync(outside, { recursive: true, force: true }),
  };
}

/**
 * The parent's log in the subagent tests: a list nudge for its open item
 * (no check), then its finished list ran the check once and was nudged, and
 * its next stop on the unchanged tree reused the result and ended the episode.
 */
export function expectParentCheckedOnce(log: DecisionLogEntry[], check: CountedCheck): void {
  expect(log.map((e) => e.reason ?? e.action)).toEqual([
    "inject",
    "inject",
    "verify-unchanged-failure",
  ]);
  expect(log[0]?.note ?? "").not.toMatch(/check failed/);
  expect(log[1]?.note).toMatch(/^check failed: exit 1/);
  expect(check.runs()).toBe(1);
}
