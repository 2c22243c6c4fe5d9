import type { LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";

/** One scripted model step: plain text that ends the turn, or one tool call. */
export type Step =
  | { text: string }
  | { tool: string; input: unknown }
  | { fail: (signal: AbortSignal | undefined) => never };

const USAGE = {
  inputTokens: { total: 1_000, noCache: 200, cacheRead: 800, cacheWrite: 0 },
  outputTokens: { total: 50, text: 50, reasoning: 0 },
};

/**
 * A mock model that plays `steps` in order, one per model call, then keeps
 * answering "Done." Calls are counted and their prompts kept for assertions.
 */
export function scriptedModel(steps: Step[]) {
  let index = 0;
  let callId = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
      const step = steps[index++] ?? { text: "Done." };
      if ("fail" in step) return step.fail(options.abortSignal);
      if ("tool" in step) {
        return {
          content: [
            {
              type: "tool-call",
              toolCallId: `call-${++callId}`,
              toolName: step.tool,
              input: JSON.stringify(step.input),
            },
          ],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage: USAGE,
          warnings: [],
        };
      }
      return {
        content: [{ type: "text", text: step.text }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: USAGE,
        warnings: [],
      };
    },
  });
  return { model, remaining: () => steps.length - index };
}

/** The text of the last user message a model call received. */
export function lastUserText(prompt: readonly { role: string; content: unknown }[]): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message?.role !== "user") continue;
    const content = message.content;
    if (typeof content === "string") return content;
    if (Array.isArray(content)) {
      return content
        .map((part: { type?: string; text?: string }) =>
          part.type === "text" ? (part.text ?? "") : "",
        )
        .join("");
    }
  }
  return "";
}
