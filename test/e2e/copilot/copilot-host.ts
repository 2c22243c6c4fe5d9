import { join } from "node:path";
import { hookServerEnv } from "../support/hook-server-setup.js";
import { ensureHost, hostBin } from "../support/host-cache.js";
import { toolCallReply } from "../support/openai-server.js";

/** The real Copilot CLI, offline, against the scripted server. */
export const COPILOT_VERSION = "1.0.102";

export function copilotBin(): string {
  return hostBin(ensureHost("@github/copilot", COPILOT_VERSION), "copilot");
}

/** Copilot's environment for a run under `root` (its home folders), the model at `baseURL`. */
export function copilotEnv(root: string, baseURL: string, storeDir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    ...hookServerEnv(),
    HOME: join(root, "home"),
    COPILOT_HOME: join(root, "copilot-home"),
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: baseURL,
    COPILOT_PROVIDER_API_KEY: "test-key",
    COPILOT_MODEL: "scripted-model",
    COPILOT_AUTO_UPDATE: "false",
    // Trusts the project folder, which is what loads its .github/hooks in prompt mode.
    COPILOT_ALLOW_ALL: "true",
    TODO_CONTINUATION_DIR: storeDir,
  };
}

/** The model's reply that runs Copilot's `sql` tool on the session's database. */
export const sql = (query: string) => toolCallReply("sql", { description: "Track todos", query });
