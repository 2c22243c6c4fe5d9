import {
  type MessagesBody,
  type Responder,
  reply,
  type ScriptedReply,
  text,
  toolUse,
  userTexts,
} from "./anthropic-server.js";

/** What a TodoWrite item can be set to. */
export type TodoStatus = "pending" | "in_progress" | "completed";

/** A TodoWrite call with the whole list, as Claude Code's model writes it. */
export const todoWrite = (...items: [string, TodoStatus][]) =>
  reply(
    toolUse("TodoWrite", {
      todos: items.map(([content, status]) => ({
        content,
        status,
        activeForm: `Working on ${content}`,
      })),
    }),
  );

/**
 * A model that stops early twice, each time with an item open, and finishes both items after the
 * nudges: what an integration that works answers with two nudges and a stop allowed.
 */
export const stopsEarlyTwice = (): ScriptedReply[] => [
  todoWrite(["Parse the config", "in_progress"], ["Write the tests", "pending"]),
  reply(text("I have started on the config.")),
  todoWrite(["Parse the config", "completed"], ["Write the tests", "in_progress"]),
  reply(text("Config parsing is done.")),
  todoWrite(["Parse the config", "completed"], ["Write the tests", "completed"]),
  reply(text("Both items are done.")),
];

/** The task a parent hands its helper subagent; every request of the helper's carries it. */
export const HELPER_TASK = "HELPER: survey the logs";

export const isHelper = (body: MessagesBody) =>
  userTexts(body).some((t) => t.includes(HELPER_TASK));

/**
 * A parent and its helper subagent: the parent starts "Review the survey",
 * hands `HELPER_TASK` to a general-purpose subagent (the Agent tool), says it
 * waits, and on its fourth turn answers `parentDone`. The helper answers
 * `helperList` first, then stops with `helperStop`, held until `gate()`
 * settles (the parent's own stop decided), so that stop always sees the
 * helper still running. `parentTurns` counts the parent's requests.
 */
export function helperSurvey(options: {
  helperList: ScriptedReply;
  helperStop: string;
  gate: () => Promise<unknown>;
  parentDone: () => ScriptedReply;
}): { responder: Responder; parentTurns(): number } {
  let parent = 0;
  let helper = 0;
  const responder: Responder = ({ body }) => {
    if (isHelper(body)) {
      helper++;
      return helper === 1
        ? options.helperList
        : { content: [text(options.helperStop)], gate: options.gate() };
    }
    parent++;
    switch (parent) {
      case 1:
        return reply(
          toolUse("TodoWrite", {
            todos: [
              { content: "Review the survey", status: "in_progress", activeForm: "Reviewing" },
            ],
          }),
        );
      case 2:
        return reply(
          toolUse("Agent", {
            description: "survey",
            prompt: HELPER_TASK,
            subagent_type: "general-purpose",
          }),
        );
      case 3:
        return reply(text("Waiting for the helper."));
      case 4:
        return options.parentDone();
      default:
        return reply(text("Reviewed."));
    }
  };
  return { responder, parentTurns: () => parent };
}

/**
 * The subagent suites' script (Claude Code and its Agent SDK): the helper
 * leaves an open item of its own and stops early; the parent completes its list.
 */
export function helperStopsEarly(gate: () => Promise<unknown>): Responder {
  return helperSurvey({
    helperList: reply(
      toolUse("TodoWrite", {
        todos: [{ content: "Helper's own item", status: "pending", activeForm: "x" }],
      }),
    ),
    helperStop: "Helper stopping early.",
    gate,
    parentDone: () =>
      reply(
        toolUse("TodoWrite", {
          todos: [{ content: "Review the survey", status: "completed", activeForm: "Reviewing" }],
        }),
      ),
  }).responder;
}
