/**
 * Which OpenCode agents a nudge may address. An agent is excluded when it is
 * on the skip list, is a subagent, or may not edit files: telling a read-only
 * planner to "keep working through the list" asks for what it cannot do.
 */

type Action = "allow" | "ask" | "deny";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** OpenCode's wildcard: `*` matches any run of characters, `?` one. */
function wildcardMatch(pattern: string, text: string): boolean {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${escaped}$`).test(text);
}

function asAction(value: unknown): Action | null {
  return value === "allow" || value === "ask" || value === "deny" ? value : null;
}

/**
 * The action for editing files in general (the `*` path) under a permission
 * set, or null when the set says nothing. Two shapes exist: OpenCode 1.x's
 * ordered rule list `[{permission, pattern, action}]`, where the last matching
 * rule wins, and the config's object form `{edit: "deny"}` or
 * `{edit: {"*": "deny", "docs/*": "allow"}}`. A rule for specific paths only
 * does not grant general write access.
 */
export function generalEditAction(permission: unknown): Action | null {
  if (Array.isArray(permission)) {
    let action: Action | null = null;
    for (const rule of permission) {
      if (!isRecord(rule)) continue;
      const name = rule.permission;
      const pattern = rule.pattern ?? "*";
      const ruleAction = asAction(rule.action);
      if (typeof name !== "string" || ruleAction === null || pattern !== "*") continue;
      if (wildcardMatch(name, "edit")) action = ruleAction;
    }
    return action;
  }
  if (isRecord(permission)) {
    const entry = Object.hasOwn(permission, "edit") ? permission.edit : permission["*"];
    if (isRecord(entry)) return asAction(entry["*"]);
    return asAction(entry);
  }
  return null;
}

export interface AgentVerdict {
  excluded: boolean;
  /** Why, in a few words, for the log. */
  why: string;
}

/** Judges one agent record from `client.app.agents()`. */
export function judgeAgent(agent: unknown, skipAgents: readonly string[]): AgentVerdict {
  if (!isRecord(agent) || typeof agent.name !== "string") {
    return { excluded: true, why: "the agent record is unreadable" };
  }
  const name = agent.name;
  if (skipAgents.includes(name))
    return { excluded: true, why: `agent "${name}" is on the skip list` };
  if (agent.mode === "subagent") return { excluded: true, why: `agent "${name}" is a subagent` };
  const tools = agent.tools;
  if (isRecord(tools) && (tools.edit === false || tools.write === false)) {
    return { excluded: true, why: `agent "${name}" has its edit tools turned off` };
  }
  if (generalEditAction(agent.permission) === "deny") {
    return { excluded: true, why: `agent "${name}" may not edit files` };
  }
  return { excluded: false, why: `agent "${name}" may edit files` };
}

/** How long a fetched agent list is trusted before it is fetched again. */
const AGENT_LIST_TTL_MS = 60_000;

/**
 * A cached view of the instance's agents. Fails closed: when the list cannot
 * be fetched, or an agent is not in it even after a refresh, the agent is
 * treated as excluded.
 */
export class AgentDirectory {
  readonly #fetch: () => Promise<unknown>;
  readonly #skip: readonly string[];
  readonly #now: () => number;
  #agents: Map<string, unknown> | null = null;
  #fetchedAt = 0;

  constructor(options: {
    fetchAgents: () => Promise<unknown>;
    skipAgents: readonly string[];
    now?: () => number;
  }) {
    this.#fetch = options.fetchAgents;
    this.#skip = options.skipAgents;
    this.#now = options.now ?? Date.now;
  }

  async #load(): Promise<Map<string, unknown>> {
    const list = await this.#fetch();
    if (!Array.isArray(list)) throw new Error("the agent list is not an array");
    const agents = new Map<string, unknown>();
    for (const agent of list) {
      if (isRecord(agent) && typeof agent.name === "string") agents.set(agent.name, agent);
    }
    this.#agents = agents;
    this.#fetchedAt = this.#now();
    return agents;
  }

  async judge(name: string | undefined): Promise<AgentVerdict> {
    if (name === undefined || name === "") {
      return { excluded: true, why: "the session's agent is not known yet" };
    }
    if (this.#skip.includes(name))
      return { excluded: true, why: `agent "${name}" is on the skip list` };
    try {
      let agents = this.#agents;
      const fresh = agents !== null && this.#now() - this.#fetchedAt < AGENT_LIST_TTL_MS;
      if (agents === null || !fresh || !agents.has(name)) agents = await this.#load();
      if (!agents.has(name))
        return { excluded: true, why: `agent "${name}" is not in OpenCode's agent list` };
      return judgeAgent(agents.get(name), this.#skip);
    } catch (error) {
      return {
        excluded: true,
        why: `the agent list could not be read (${error instanceof Error ? error.message : String(error)})`,
      };
    }
  }
}
