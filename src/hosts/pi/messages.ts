/**
 * A reminder as the model reads it: fenced, so it is not mistaken for the
 * user's own words (the same convention pi and Claude Code use).
 */
export function formatReminder(text: string): string {
  return `<system-reminder>\n${text}\n</system-reminder>`;
}

/** The first sentence of a tool description: pi's one-line "Available tools" entry. */
export function promptSnippet(description: string): string {
  const line = description.split("\n", 1)[0] ?? "";
  const sentence = /^(.*?[.!?])(\s|$)/.exec(line)?.[1] ?? line;
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
}
