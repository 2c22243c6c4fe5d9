import type { DoctorCheck, DoctorFinding } from "../../hosts/doctor.js";
import type { CommandSpec } from "../command.js";
import { DATABASE_URL_ENV, DIR_ENV, storeTarget } from "../global-options.js";

/** Every check the doctor runs, one line each, loaded only when the doctor runs. */
export const DOCTOR_CHECKS: readonly (() => Promise<DoctorCheck>)[] = [
  async () => (await import("../../hosts/claude-code/doctor.js")).claudeCodeDoctor,
  async () => (await import("../../hosts/codex/doctor.js")).codexDoctor,
  async () => (await import("../../hosts/gemini/doctor.js")).geminiDoctor,
  async () => (await import("../../hosts/opencode/doctor.js")).openCodeDoctor,
  async () => (await import("../../hosts/pi/doctor.js")).piDoctor,
  async () => (await import("../../store/doctor.js")).storeDoctor,
];

/** One finding as a line (and a `fix:` line under a problem). */
export function formatFinding(finding: DoctorFinding): string[] {
  const head = `${finding.ok ? "ok     " : "PROBLEM"}  ${finding.host.padEnd(11)} ${finding.message}`;
  return finding.ok || finding.fix === undefined
    ? [head]
    : [head, `${" ".repeat(21)}fix: ${finding.fix}`];
}

export const doctorCommand: CommandSpec = {
  name: "doctor",
  summary: "Check every installed host's integration, the store and PostgreSQL",
  usage: ["doctor"],
  details: [
    "For each host found on this machine (Claude Code, OpenCode, pi, ...): its version against",
    "what the integration needs, our hooks, plugin or extension present and loadable, and the",
    "command it runs resolvable; then the store (writable, or PostgreSQL reachable when",
    "configured). Each problem comes with the command that fixes it. Exit 1 on any problem.",
  ],
  args: { min: 0, max: 0 },
  examples: ["doctor", "doctor --json", "doctor --database-url postgres://app@127.0.0.1/app"],
  async run(ctx) {
    // The global store options mean what they mean everywhere: pass them on as the environment.
    const target = storeTarget(ctx.global, ctx.io.env);
    const env = { ...ctx.io.env };
    if (target.kind === "postgres") env[DATABASE_URL_ENV] = target.connectionString;
    if (ctx.global.dir !== undefined) {
      env[DIR_ENV] = ctx.global.dir;
      delete env[DATABASE_URL_ENV];
    }
    const context = { cwd: ctx.io.cwd, home: env.HOME ?? "", env };
    const findings: DoctorFinding[] = [];
    for (const load of DOCTOR_CHECKS) {
      try {
        findings.push(...(await (await load())(context)));
      } catch (error) {
        // A check's own bug is still a finding, never a crash that hides the others.
        const message = error instanceof Error ? error.message : String(error);
        findings.push({
          host: "doctor",
          check: "crashed",
          ok: false,
          message: message.slice(0, 200),
        });
      }
    }
    const problems = findings.filter((f) => !f.ok).length;
    if (ctx.global.json) {
      ctx.json({ ok: problems === 0, findings });
    } else {
      for (const finding of findings) for (const line of formatFinding(finding)) ctx.out(line);
      ctx.out(
        problems === 0
          ? "No problems found."
          : `${problems} problem${problems === 1 ? "" : "s"} found.`,
      );
    }
    return problems === 0 ? 0 : 1;
  },
};
