import type { DoctorCheck, DoctorFinding } from "../../hosts/doctor.js";
import { INSTALLERS } from "../../hosts/installer/table.js";
import type { CommandSpec } from "../command.js";
import { DATABASE_URL_ENV, DIR_ENV, storeTarget } from "../global-options.js";

/** One check the doctor runs, loaded only when the doctor runs; `host` is set for host integrations. */
export interface DoctorEntry {
  host?: string;
  load: () => Promise<DoctorCheck>;
}

/** Every check the doctor runs: each host's (from the install table), the store's, the hook server's. */
export const DOCTOR_CHECKS: readonly DoctorEntry[] = [
  ...INSTALLERS.map((row) => ({ host: row.host, load: row.doctor })),
  { load: async () => (await import("../../store/doctor.js")).storeDoctor },
  {
    load: async () =>
      (await import("../../hosts/hook-kit/server/server-doctor.js")).hookServerDoctor,
  },
];

/** Hosts of the doctor's checks that have no integration of ours: not found at all, or found without one. */
export function hostsWithoutIntegration(
  findings: readonly DoctorFinding[],
  hosts: readonly string[],
): string[] {
  return hosts.filter((host) => {
    const own = findings.filter((f) => f.host === host);
    return own.length === 0 || own.some((f) => f.notInstalled === true);
  });
}

/** The closing lines when no host has an integration: which ones, and how to install one. */
export function noIntegrationLines(without: readonly string[], hosts: readonly string[]): string[] {
  if (without.length < hosts.length) return [];
  return [
    `No host integration is installed: none found for ${without.join(", ")}; only the store was checked.`,
    `Install one in this project: todo-continuation install <${hosts.join("|")}>`,
    "(add --user for every project; `todo-continuation install <host> --help` lists the options).",
  ];
}

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
    "A host with no integration of ours is named as such; with none installed for any host,",
    "the doctor says so and how to install one.",
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
    const hosts: string[] = [];
    for (const { host, load } of DOCTOR_CHECKS) {
      if (host !== undefined) hosts.push(host);
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
    const without = hostsWithoutIntegration(findings, hosts);
    if (ctx.global.json) {
      ctx.json({ ok: problems === 0, findings, hostsWithoutIntegration: without });
    } else {
      for (const finding of findings) for (const line of formatFinding(finding)) ctx.out(line);
      for (const host of hosts) {
        if (!findings.some((f) => f.host === host)) {
          ctx.out(
            `none     ${host.padEnd(11)} no integration of ours found (todo-continuation install ${host} adds it)`,
          );
        }
      }
      const none = noIntegrationLines(without, hosts);
      // "No problems found" alone would hide that nothing is installed.
      if (problems > 0) ctx.out(`${problems} problem${problems === 1 ? "" : "s"} found.`);
      else if (none.length === 0) ctx.out("No problems found.");
      for (const line of none) ctx.out(line);
    }
    return problems === 0 ? 0 : 1;
  },
};
