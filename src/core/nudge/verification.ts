import type { CheckResult } from "../types.js";

/**
 * The nudge for a list that is done while the project's check fails: the
 * command, its exit code and the last lines of its output, and what to do.
 * Pure; the output tail is already bounded by the runner.
 */
export function renderVerificationNudge(check: CheckResult, closeInstruction: string): string {
  const ending =
    check.exitCode !== null
      ? `exit code ${check.exitCode}`
      : check.signal !== null
        ? `killed by ${check.signal}`
        : "no exit code";
  const output = check.outputTail.trim() === "" ? "(no output)" : check.outputTail;
  return [
    "Your todo list has nothing left to do, but the project's check fails, so the work is not finished.",
    "",
    `Check: \`${check.command}\` (${ending})`,
    "Last lines of its output:",
    "```",
    output.replaceAll("```", "'''"),
    "```",
    "",
    `Fix what fails. Track what remains on your todo list (add an item for each problem) and close each one as it is done. ${closeInstruction}`,
    "The check runs again when you stop.",
  ].join("\n");
}

/** The same failure as a section under a list nudge (`verify.when: "every-stop"`). */
export function verificationSection(check: CheckResult): string {
  const ending = check.exitCode !== null ? `exit code ${check.exitCode}` : "no exit code";
  return [
    "",
    `The project's check \`${check.command}\` also fails (${ending}); its last lines:`,
    "```",
    (check.outputTail.trim() === "" ? "(no output)" : check.outputTail).replaceAll("```", "'''"),
    "```",
  ].join("\n");
}
