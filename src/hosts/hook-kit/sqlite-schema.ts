import { SqliteFileError, SqliteUnsupportedError, type SqliteValue } from "./sqlite-record.js";

/**
 * The columns of a table, from the CREATE TABLE text SQLite keeps in its schema table: their
 * names and order (a record stores values in that order), which one is the rowid (an INTEGER
 * PRIMARY KEY is stored as NULL and read as the rowid), and the constant default of each (a
 * row written before ALTER TABLE ADD COLUMN has no value for the added column).
 */

export interface TableColumn {
  name: string;
  /** The value of a row whose record ends before this column. */
  missing: { value: SqliteValue } | { complex: true };
}

export interface TableShape {
  columns: TableColumn[];
  /** Index of the column that is the rowid, or -1. */
  rowidColumn: number;
}

type Token = { kind: "word" | "id" | "string" | "blob" | "num" | "punct"; text: string };

const CONSTRAINT_START = new Set(["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]);
const COLUMN_CONSTRAINT = new Set([
  "CONSTRAINT",
  "PRIMARY",
  "NOT",
  "NULL",
  "UNIQUE",
  "CHECK",
  "DEFAULT",
  "COLLATE",
  "REFERENCES",
  "GENERATED",
  "AS",
]);

/** SQLite compares identifiers case-insensitively, folding ASCII letters only. */
export function foldName(name: string): string {
  return name.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const closing = (quote: string, doubled: boolean): string => {
    let text = "";
    let j = i + 1;
    for (;;) {
      const k = sql.indexOf(quote, j);
      if (k < 0) throw new SqliteFileError(`an unterminated ${quote} in the table's SQL`);
      text += sql.slice(j, k);
      if (doubled && sql[k + 1] === quote) {
        text += quote;
        j = k + 2;
      } else {
        i = k + 1;
        return text;
      }
    }
  };
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) i++;
    else if (sql.startsWith("--", i))
      i = sql.includes("\n", i) ? sql.indexOf("\n", i) + 1 : sql.length;
    else if (sql.startsWith("/*", i))
      i = sql.includes("*/", i + 2) ? sql.indexOf("*/", i + 2) + 2 : sql.length;
    else if (c === '"' || c === "`") tokens.push({ kind: "id", text: closing(c, true) });
    else if (c === "[") tokens.push({ kind: "id", text: closing("]", false) });
    else if (c === "'") tokens.push({ kind: "string", text: closing("'", true) });
    else if ((c === "x" || c === "X") && sql[i + 1] === "'") {
      i++;
      tokens.push({ kind: "blob", text: closing("'", false) });
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(sql[i + 1] ?? ""))) {
      const m = /^(0x[0-9a-f]+|[0-9]*\.?[0-9]*(e[+-]?[0-9]+)?)/i.exec(sql.slice(i))!;
      tokens.push({ kind: "num", text: m[0] });
      i += m[0].length;
    } else if (/[\w$\u0080-\uffff]/.test(c)) {
      const m = /^[\w$\u0080-\uffff]+/.exec(sql.slice(i))!;
      tokens.push({ kind: "word", text: m[0] });
      i += m[0].length;
    } else {
      tokens.push({ kind: "punct", text: c });
      i++;
    }
  }
  return tokens;
}

const upper = (t: Token | undefined) => (t?.kind === "word" ? t.text.toUpperCase() : "");

/** Splits the tokens between a "(" at `open` and its ")" at commas outside nested parentheses. */
function items(tokens: Token[], open: number): { parts: Token[][]; close: number } {
  const parts: Token[][] = [[]];
  let depth = 0;
  for (let i = open + 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === "punct" && t.text === "(") depth++;
    if (t.kind === "punct" && t.text === ")") {
      if (depth === 0) return { parts, close: i };
      depth--;
    }
    if (depth === 0 && t.kind === "punct" && t.text === ",") parts.push([]);
    else parts.at(-1)!.push(t);
  }
  throw new SqliteFileError("the table's SQL has no closing parenthesis");
}

/** A DEFAULT's value when it is a literal; complex otherwise (SQLite would evaluate it). */
function defaultOf(tokens: Token[], at: number, affinity: string): TableColumn["missing"] {
  let sign = 1;
  let t = tokens[at];
  if (t?.kind === "punct" && (t.text === "-" || t.text === "+")) {
    sign = t.text === "-" ? -1 : 1;
    t = tokens[at + 1];
  }
  const word = upper(t);
  if (word === "NULL") return { value: null };
  const numeric = affinity !== "TEXT";
  // TRUE and FALSE are 1 and 0; other words (CURRENT_TIME) and expressions are evaluated.
  if ((word === "TRUE" || word === "FALSE") && numeric) return { value: word === "TRUE" ? 1 : 0 };
  if (t?.kind === "num" && numeric) {
    const value = sign * Number(t.text);
    if (Number.isFinite(value) && (Number.isSafeInteger(value) || !/^0x|^[0-9]+$/i.test(t.text))) {
      return { value };
    }
  }
  // A string keeps its text only where the affinity does not make it a number.
  if (
    t?.kind === "string" &&
    sign === 1 &&
    t === tokens[at] &&
    (affinity === "TEXT" || affinity === "BLOB")
  ) {
    return { value: t.text };
  }
  if (t?.kind === "blob" && t === tokens[at] && /^([0-9a-f]{2})*$/i.test(t.text)) {
    return { value: Uint8Array.from(Buffer.from(t.text, "hex")) };
  }
  return { complex: true };
}

/** The affinity of a declared type (https://www.sqlite.org/datatype3.html, 3.1). */
function affinityOf(type: string): string {
  if (type.includes("INT")) return "INTEGER";
  if (/CHAR|CLOB|TEXT/.test(type)) return "TEXT";
  if (type === "" || type.includes("BLOB")) return "BLOB";
  if (/REAL|FLOA|DOUB/.test(type)) return "REAL";
  return "NUMERIC";
}

/** The shape of the rowid table created by `sql`; throws for a table this reader cannot read. */
export function parseCreateTable(sql: string): TableShape {
  const tokens = tokenize(sql);
  const open = tokens.findIndex((t) => t.kind === "punct" && t.text === "(");
  if (open < 0 || upper(tokens[0]) !== "CREATE") {
    throw new SqliteFileError("the table's SQL is not a CREATE TABLE with columns");
  }
  if (tokens.slice(0, open).some((t) => upper(t) === "VIRTUAL")) {
    throw new SqliteUnsupportedError("it is a virtual table");
  }
  const { parts, close } = items(tokens, open);
  const tail = tokens.slice(close + 1).map(upper);
  if (tail.some((word, i) => word === "WITHOUT" && tail[i + 1] === "ROWID")) {
    throw new SqliteUnsupportedError("it is a WITHOUT ROWID table");
  }
  const columns: TableColumn[] = [];
  const types: string[] = [];
  let rowidColumn = -1;
  let tablePrimaryKey: string[] = [];
  for (const part of parts) {
    const first = part[0];
    if (first === undefined) throw new SqliteFileError("the table's SQL has an empty column");
    if (first.kind === "word" && CONSTRAINT_START.has(upper(first))) {
      const key = part.findIndex((t, i) => upper(t) === "PRIMARY" && upper(part[i + 1]) === "KEY");
      if (key >= 0 && part[key + 2]?.text === "(") {
        const inner = items(part, key + 2).parts;
        tablePrimaryKey = inner.map((names) => foldName(names[0]?.text ?? ""));
      }
      continue;
    }
    if (first.kind === "punct" || first.kind === "num" || first.kind === "blob") {
      throw new SqliteFileError(`the table's SQL has a column named by ${first.text}`);
    }
    let at = 1;
    const typeWords: string[] = [];
    while (
      at < part.length &&
      part[at]!.kind !== "punct" &&
      !COLUMN_CONSTRAINT.has(upper(part[at]))
    ) {
      typeWords.push(part[at]!.text);
      at++;
    }
    const type = typeWords.join(" ").toUpperCase();
    const affinity = affinityOf(type);
    let missing: TableColumn["missing"] = { value: null };
    for (let i = at; i < part.length; i++) {
      const word = upper(part[i]);
      if (word === "GENERATED" || word === "AS") {
        throw new SqliteUnsupportedError("it has a generated column");
      }
      if (word === "DEFAULT") missing = defaultOf(part, i + 1, affinity);
      if (word === "PRIMARY" && upper(part[i + 1]) === "KEY") {
        if (type === "INTEGER" && upper(part[i + 2]) !== "DESC") rowidColumn = columns.length;
      }
    }
    columns.push({ name: first.text, missing });
    types.push(type);
  }
  if (tablePrimaryKey.length === 1) {
    const index = columns.findIndex((c) => foldName(c.name) === tablePrimaryKey[0]);
    if (index >= 0 && types[index] === "INTEGER") rowidColumn = index;
  }
  if (columns.length === 0) throw new SqliteFileError("the table's SQL names no columns");
  return { columns, rowidColumn };
}
