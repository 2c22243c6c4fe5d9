/**
 * Whether a final answer ends by asking the user something. Host-neutral:
 * every host that shows the agent's last text uses it to set `awaitingUser`,
 * since nudging "keep going" over a question takes the decision from the user.
 */
export function asksTheUser(message: string | null | undefined): boolean {
  if (message == null) return false;
  const lines = message
    .trim()
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const last = lines.at(-1) ?? "";
  // Trailing markdown emphasis or a closing quote may follow the question mark.
  return /\?[*_"')\]]*$/.test(last);
}
