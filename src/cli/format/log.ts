import { formatCount, formatTimestamp } from "../../core/explain/numbers.js";
import type { DecisionLogEntry } from "../../core/types.js";
import type { Style } from "../style.js";
import { decisionPhrase } from "./state.js";
import { formatTable } from "./table.js";

function colourFor(entry: DecisionLogEntry, style: Style): (text: string) => string {
  if (entry.action === "inject") return entry.delivered === false ? style.red : style.green;
  if (entry.action === "delivery-failed") return style.red;
  return style.yellow;
}

/** The decision log as a table, oldest first, one row per decision. */
export function formatLog(entries: readonly DecisionLogEntry[], style: Style): string[] {
  if (entries.length === 0) return ["No decisions recorded yet."];
  return formatTable(
    [
      { header: "TIME" },
      { header: "TRIGGER" },
      { header: "OPEN", align: "right" },
      { header: "BLOCKED", align: "right" },
      { header: "NUDGES", align: "right" },
      { header: "TOKENS", align: "right" },
      { header: "STAGNANT", align: "right" },
      { header: "DECISION" },
    ],
    entries.map((e) => [
      formatTimestamp(e.at),
      e.trigger,
      formatCount(e.actionable),
      formatCount(e.blocked),
      formatCount(e.autoTurns),
      formatCount(e.tokens),
      formatCount(e.stagnation),
      colourFor(e, style)(decisionPhrase(e)),
    ]),
  );
}
