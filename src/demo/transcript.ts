import type { Style } from "../ui/style.js";

/** Who a transcript line is about; the width keeps the text column aligned. */
export type Role = "user" | "agent" | "host" | "runtime" | "note";

const ROLE_WIDTH = 8;

/** Writes the demo's transcript, one labelled line at a time. */
export class Transcript {
  constructor(
    private readonly print: (line: string) => void,
    private readonly style: Style,
  ) {}

  line(role: Role, text: string): void {
    const label = role.padEnd(ROLE_WIDTH);
    const colour =
      role === "user"
        ? this.style.cyan
        : role === "runtime"
          ? this.style.bold
          : role === "note"
            ? this.style.dim
            : (t: string) => t;
    const [first = "", ...rest] = text.split("\n");
    this.print(`  ${colour(label)} ${first}`);
    for (const more of rest) this.print(`  ${" ".repeat(ROLE_WIDTH)} ${more}`);
  }

  /** A block of text (a nudge) quoted under the previous line. */
  quote(text: string): void {
    for (const line of text.split("\n")) {
      this.print(`  ${" ".repeat(ROLE_WIDTH)} ${this.style.dim("|")} ${line}`);
    }
  }

  heading(text: string): void {
    this.print("");
    this.print(this.style.bold(text));
  }

  raw(text = ""): void {
    this.print(text);
  }
}

/** A nudge described in one line: "nudge #2 of episode ep-x (412 chars, ~103 tokens)". */
export function nudgeLabel(nudge: {
  autoTurn: number;
  episodeId: string;
  chars: number;
  tokens: number;
}): string {
  return `nudge #${nudge.autoTurn} of episode ${nudge.episodeId} (${nudge.chars} chars, ~${nudge.tokens} tokens)`;
}
