/**
 * The TypeScript examples of the README and docs/, as the reader sees them:
 * every ```ts fence, with the file and line it starts on.
 */
export interface Snippet {
  file: string;
  /** The 1-based line of the snippet's first line of code. */
  line: number;
  code: string;
}

export function extractSnippets(file: string, markdown: string): Snippet[] {
  const out: Snippet[] = [];
  const lines = markdown.split("\n");
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (start < 0 && /^```(ts|typescript)\s*$/.test(line)) start = i + 1;
    else if (start >= 0 && /^```\s*$/.test(line)) {
      out.push({ file, line: start + 1, code: lines.slice(start, i).join("\n") });
      start = -1;
    }
  }
  return out;
}
