/**
 * Terminal colour, decided once per run. Colour is on only when stdout is a
 * terminal and NO_COLOR is unset (https://no-color.org); FORCE_COLOR turns it
 * on anyway for people who pipe into a pager that understands it.
 */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function colorEnabled(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "" && force !== "0" && force !== "false") return true;
  return isTTY && env.TERM !== "dumb";
}

function wrap(enabled: boolean, open: number, close: number): (text: string) => string {
  if (!enabled) return (text) => text;
  return (text) => (text === "" ? text : `\u001b[${open}m${text}\u001b[${close}m`);
}

export function createStyle(enabled: boolean): Style {
  return {
    enabled,
    bold: wrap(enabled, 1, 22),
    dim: wrap(enabled, 2, 22),
    red: wrap(enabled, 31, 39),
    green: wrap(enabled, 32, 39),
    yellow: wrap(enabled, 33, 39),
    cyan: wrap(enabled, 36, 39),
  };
}

/** Removes colour codes, so widths and tests see the visible text only. */
export function stripAnsi(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}
