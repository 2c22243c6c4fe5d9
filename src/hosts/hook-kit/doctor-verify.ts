import { type ProjectSettings, readProjectSettings } from "../../config/project.js";
import { runningWatchers, watcherFolder } from "../../verify/watcher-paths.js";
import type { DoctorContext, DoctorFinding } from "../doctor.js";
import { type HookHost, type ProjectCheck, projectCheckOf, stopTimeoutCovers } from "./timeout.js";

/**
 * What `doctor` says of a hook host about the project's config in the
 * folder it runs in: the config's problem when it does not validate (the
 * hooks then allow every stop), whether its `verify` is trusted, and whether
 * the installed Stop hook timeout still covers `verify.timeoutMs`. Nothing
 * without a config file.
 */
export function verifyFindings(
  host: HookHost,
  ctx: DoctorContext,
  /** The installed Stop (AfterAgent) hook timeout in ms; null when it writes none. */
  installedStopMs: number | null,
  /** The install command that rewrites the timeout. */
  reinstall: string,
): DoctorFinding[] {
  const project = readProject(ctx);
  const out = configFindings(host, project, "the hooks allow every stop");
  if (out.some((f) => f.check === "config")) return out;
  const covers = stopTimeoutCovers(host, installedStopMs, project.check);
  if (covers !== null) {
    out.push({
      host,
      check: "timeout",
      ok: covers.ok,
      message: covers.message,
      ...(covers.ok ? {} : { fix: reinstall }),
    });
  }
  if (out.some((f) => f.check === "verify" && f.ok)) out.push(watcherFinding(host, ctx));
  return out;
}

/**
 * Of the installed Stop hooks (one per settings file that holds ours), the one that waits least:
 * a project check must fit in it, whichever copy the host runs (hosts that run a command once
 * do not say whose timeout they keep; Codex CLI runs both, and either may claim the stop). A
 * hook with no timeout written (null) waits the host's default: the longest here.
 */
export function shortestStop<T extends { stopMs: number | null }>(
  installs: readonly T[],
): T | null {
  const wait = (i: T) => i.stopMs ?? Number.POSITIVE_INFINITY;
  return installs.reduce<T | null>((a, b) => (a === null || wait(b) < wait(a) ? b : a), null);
}

/** Whether the project's shared watcher runs (hooks ask it at a stop; the first verified stop starts it). */
function watcherFinding(host: string, ctx: DoctorContext): DoctorFinding {
  if (ctx.env.TODO_CONTINUATION_VERIFY_WATCHER === "0") {
    return {
      host,
      check: "watcher",
      ok: true,
      message: "watcher off (TODO_CONTINUATION_VERIFY_WATCHER=0)",
    };
  }
  const mine = runningWatchers(watcherFolder(ctx.env)).filter(
    (w) => ctx.cwd === w.project || ctx.cwd.startsWith(`${w.project}/`),
  );
  return {
    host,
    check: "watcher",
    ok: true,
    message:
      mine.length > 0
        ? `watcher running for ${mine[0]?.project} (pid ${mine.map((w) => w.pid).join(", ")})`
        : "no watcher running for this project (the next verified stop starts one)",
  };
}

/**
 * The part every host shares, hooks or plugins: the config's problem when it
 * does not validate (`consequence` says what the host then does), and
 * whether its `verify` is trusted. Nothing without a config file.
 */
export function projectConfigFindings(
  host: string,
  ctx: DoctorContext,
  consequence: string,
): DoctorFinding[] {
  return configFindings(host, readProject(ctx), consequence);
}

/** The project config as a host would use it, and the check a Stop hook must cover: one read. */
interface DoctorProject {
  settings: ProjectSettings;
  check: ProjectCheck;
}

function readProject(ctx: DoctorContext): DoctorProject {
  const env = { ...ctx.env, HOME: ctx.env.HOME ?? ctx.home };
  const { settings, loaded } = readProjectSettings(ctx.cwd, { env, home: ctx.home });
  return { settings, check: projectCheckOf(loaded) };
}

function configFindings(
  host: string,
  { settings, check }: DoctorProject,
  consequence: string,
): DoctorFinding[] {
  if (settings.problem !== null) {
    return [
      {
        host,
        check: "config",
        ok: false,
        message: `the project config cannot be used, so ${consequence}: ${settings.problem}`,
        fix: "fix the file (`todo-continuation config` checks it)",
      },
    ];
  }
  const notify: DoctorFinding[] =
    settings.notifyNotice != null
      ? [
          {
            host,
            check: "notify",
            ok: false,
            message: settings.notifyNotice,
            fix: "todo-continuation trust",
          },
        ]
      : settings.notify != null
        ? [
            {
              host,
              check: "notify",
              ok: true,
              message: `notifications go out: ${settings.file} is trusted`,
            },
          ]
        : [];
  if (settings.file === null || check.timeoutMs === null) return notify;
  if (settings.trust?.trusted === true) {
    return [
      ...notify,
      {
        host,
        check: "verify",
        ok: true,
        message: `verify runs: ${settings.file} is trusted${settings.trust.why === "home" ? " (a file in your home folder)" : ""}`,
      },
    ];
  }
  return [
    ...notify,
    {
      host,
      check: "verify",
      ok: false,
      message: settings.notice ?? `verify not run: ${settings.file} is not trusted`,
      fix: "todo-continuation trust",
    },
  ];
}
