import { describe, expect, it } from "vitest";
import { todoContinuationHooks } from "../../../src/hosts/claude-agent-sdk/index.js";
import { closeInstructionFor } from "../../../src/hosts/claude-code/todos.js";
import {
  lastUserText,
  type MessagesBody,
  reply,
  text,
  toolUse,
} from "../support/anthropic-server.js";
import { waitFor } from "../support/wait-for.js";
import {
  readSession,
  type SdkMessage,
  sdkEnv,
  sdkQuery,
  sdkSuite,
  sessionIdOf,
  userMessage,
} from "./harness.js";

const suite = sdkSuite();
const MARK = closeInstructionFor("todo-write");
const answersNudge = (body: MessagesBody) => lastUserText(body).includes(MARK);

const list = (
  first: "in_progress" | "completed",
  second: "pending" | "in_progress" | "completed",
) =>
  reply(
    toolUse("TodoWrite", {
      todos: [
        { content: "Build the index", status: first, activeForm: "Building" },
        { content: "Query the index", status: second, activeForm: "Querying" },
      ],
    }),
  );

describe("the user's interrupt through the SDK (streaming input)", () => {
  it("runs no Stop and asks nothing more until the user speaks; then the list is worked again", async () => {
    const model = await suite.serve(({ turn }) => {
      switch (turn) {
        case 0:
          return list("in_progress", "pending");
        case 1:
          // Still streaming when the user interrupts.
          return { content: [text("Thinking...")], hang: true };
        case 2:
          return list("completed", "in_progress");
        case 3:
          return reply(text("Stopping here for now."));
        case 4:
          return list("completed", "completed");
        default:
          return reply(text("Both items are done."));
      }
    });
    const project = suite.project();
    const lines: string[] = [];
    let say: (text: string) => void = () => undefined;
    let end: () => void = () => undefined;
    async function* input(): AsyncGenerator<unknown> {
      yield userMessage("Index and query");
      for (;;) {
        const next = await new Promise<string | null>((resolve) => {
          say = resolve;
          end = () => resolve(null);
        });
        if (next === null) return;
        yield userMessage(next);
      }
    }
    const query = await sdkQuery();
    const q = query({
      prompt: input(),
      options: {
        cwd: project.dir,
        env: sdkEnv(project, model, suite.trap()),
        permissionMode: "bypassPermissions",
        allowDangerouslySkipPermissions: true,
        settingSources: [],
        hooks: todoContinuationHooks({ log: (line) => lines.push(line) }),
      },
    });
    const messages: SdkMessage[] = [];
    const running = (async () => {
      try {
        for await (const message of q) messages.push(message);
        return null;
      } catch (error) {
        return error;
      }
    })();
    await waitFor("the second model request", () => (model.turns().length >= 2 ? true : undefined));
    await q.interrupt();
    // Time for a Stop or a request the interrupt should not cause.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(model.turns()).toHaveLength(2);
    expect(lines).toEqual([]);
    say("Carry on with the list.");
    await waitFor("the final answer", () => (model.turns().length >= 6 ? true : undefined));
    await waitFor("the last decision", async () => {
      const { log } = await readSession(project, sessionIdOf(messages));
      return log.at(-1)?.reason === "no-incomplete-todos" ? true : undefined;
    });
    end();
    expect(await running, lines.join("\n")).toBeNull();
    expect(model.turns().map(answersNudge)).toEqual([false, false, false, false, true, false]);
    const { log } = await readSession(project, sessionIdOf(messages));
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "no-incomplete-todos"]);
  });
});
