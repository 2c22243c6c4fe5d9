import { quote } from "./text.js";

/**
 * Fields an item may carry in its trailing HTML comment
 * (`<!-- id=7 priority=high activeForm="Running tests" -->`): invisible when
 * the markdown is rendered, plain to edit by hand.
 */
export const ITEM_FIELDS = ["id", "priority", "activeForm", "blockedReason", "phase"] as const;
export type ItemField = (typeof ITEM_FIELDS)[number];
export type ItemMeta = Partial<Record<ItemField, string>>;

/** Values written without quotes; `>` and `<` are excluded so `-->` can never appear. */
const BARE = /^[A-Za-z0-9_.:/#@+-]+$/;
const TOKEN = /\s*([A-Za-z]+)=("(?:[^"\\]|\\.)*"|[^\s"]+)/y;

export function formatMeta(meta: ItemMeta): string {
  const parts: string[] = [];
  for (const field of ITEM_FIELDS) {
    const value = meta[field];
    if (value !== undefined) parts.push(`${field}=${BARE.test(value) ? value : quote(value)}`);
  }
  return parts.length === 0 ? "" : `<!-- ${parts.join(" ")} -->`;
}

function isField(name: string): name is ItemField {
  return (ITEM_FIELDS as readonly string[]).includes(name);
}

/** Reads the inside of an item comment; returns an error sentence on bad syntax. */
export function parseMeta(inner: string): ItemMeta | string {
  const meta: ItemMeta = {};
  TOKEN.lastIndex = 0;
  let at = 0;
  while (inner.slice(at).trim() !== "") {
    TOKEN.lastIndex = at;
    const match = TOKEN.exec(inner);
    if (!match) {
      return `cannot read the item comment near ${JSON.stringify(inner.slice(at).trim().slice(0, 30))}; write fields as name=value or name="quoted value"`;
    }
    const [, name = "", raw = ""] = match;
    if (!isField(name)) {
      return `unknown field ${JSON.stringify(name)} in the item comment (known: ${ITEM_FIELDS.join(", ")})`;
    }
    if (meta[name] !== undefined)
      return `field ${JSON.stringify(name)} appears twice in the item comment`;
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        return `the quoted value of ${JSON.stringify(name)} is not a valid JSON string`;
      }
    }
    meta[name] = value;
    at = TOKEN.lastIndex;
  }
  return meta;
}
