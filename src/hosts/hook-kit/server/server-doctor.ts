import { readdirSync, readFileSync } from "node:fs";
import type { DoctorCheck, DoctorFinding } from "../../doctor.js";
import {
  HOOK_SERVER_ENV,
  SERVER_SCRIPT,
  serverFolder,
  serverFolderProblem,
} from "./server-files.js";

/**
 * What `doctor` says of the resident hook server: off, not usable here (and
 * why), running (which processes), or not running yet. Never a problem: hooks
 * without a server run each event in their own process.
 */
export const hookServerDoctor: DoctorCheck = async (ctx) => {
  const finding = (message: string): DoctorFinding[] => [
    { host: "hooks", check: "server", ok: true, message },
  ];
  if (ctx.env[HOOK_SERVER_ENV] === "0") {
    return finding(
      `hook server off (${HOOK_SERVER_ENV}=0): each hook event runs in its own process`,
    );
  }
  const folder = serverFolder(ctx.env);
  if (folder === null) return finding(`no hook server on ${process.platform} (Linux only)`);
  const problem = serverFolderProblem(folder);
  if (problem?.endsWith("does not exist")) {
    return finding(`no hook server running in ${folder} (the next hook event starts one)`);
  }
  if (problem !== null) {
    return finding(`hook server not used: ${problem}; each hook event runs in its own process`);
  }
  const running = readdirSync(folder)
    .filter((name) => /^hs1-[0-9a-f]{16}\.pid$/.test(name))
    .flatMap((name) => {
      try {
        const pid = Number(readFileSync(`${folder}/${name}`, "utf8").split("\n")[0]);
        const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        return command.some((part) => part.endsWith(SERVER_SCRIPT)) ? [pid] : [];
      } catch {
        return [];
      }
    });
  return finding(
    running.length > 0
      ? `hook server running in ${folder} (pid ${running.join(", ")})`
      : `no hook server running in ${folder} (the next hook event starts one)`,
  );
};
