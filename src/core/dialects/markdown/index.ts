export { DEFAULT_PHASE } from "./format.js";
export { type MarkdownParse, parseMarkdown } from "./parse.js";
export { renderMarkdown } from "./render.js";
