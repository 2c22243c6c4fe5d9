/**
 * `todo-continuation/ai-sdk`: the todo tools as Vercel AI SDK tools and a wake
 * loop around `generateText` or an agent that keeps going while todos are open.
 */
export { createTodoTools, TodoToolError, type TodoToolsOptions, toAiSdkTool } from "./tools.js";
export {
  type AiSdkVerifyOptions,
  aiSdkVerify,
  formatReminders,
  type GenerateTurnResult,
  type RunWithTodosOptions,
  type RunWithTodosResult,
  runWithTodos,
} from "./wake-loop.js";
