/**
 * `todo-continuation/mcp`: the todo tools as an MCP server over the durable
 * store, for any MCP client. The CLI serves it on stdio (`todo-continuation mcp`).
 */
export {
  createTodoMcpServer,
  type McpScopeChoice,
  type McpSession,
  scopeForSession,
  type TodoMcpServerOptions,
} from "./server.js";
