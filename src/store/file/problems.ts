import type { StoreProblem, TodoList } from "../../core/types.js";
import { listLosesData, type RawDocument, type StoredState } from "./documents.js";

/**
 * What is wrong with a scope's stored documents, in the words `problems`
 * reports. Pure: the single-scope path and the whole-store scan read the files
 * their own way and both describe them here, so their answers cannot drift.
 */
export interface DocumentsRead {
  todosPath: string;
  todosRaw: RawDocument;
  todos: TodoList;
  statePath: string;
  stateRaw: RawDocument;
  /** The state read without the stop marker (the marker changes no problem). */
  state: StoredState;
  logPath: string;
  logUnusable: boolean;
  /** Preserved copies of a document's file, oldest first. */
  preserved(path: string): string[];
}

export function describeProblems(read: DocumentsRead): StoreProblem[] {
  const found: StoreProblem[] = [];
  const note = (document: StoreProblem["document"], location: string, problem: string | null) => {
    const preserved = read.preserved(location);
    if (problem !== null || preserved.length > 0) {
      found.push({ document, location, problem, preserved });
    }
  };
  note("todos", read.todosPath, describeListProblem(read.todosRaw, read.todos));
  note("state", read.statePath, describeStateProblem(read.stateRaw, read.state));
  note("log", read.logPath, read.logUnusable ? "too big or not a file" : null);
  return found;
}

function describeStateProblem(raw: RawDocument, stored: StoredState): string | null {
  if (stored.damaged) {
    return raw.value === undefined
      ? "not readable as JSON"
      : "changed outside the store (its checksum does not match)";
  }
  return stored.state.untrusted
    ? "held untrusted since an unreadable read, until the next real user turn"
    : null;
}

/** What a list read lost, in a few words; null when it lost nothing. */
function describeListProblem(raw: RawDocument, list: TodoList): string | null {
  if (raw.unusable) return "not readable as JSON";
  if (!listLosesData(raw, list)) return null;
  const stored = Array.isArray(raw.value?.todos) ? raw.value.todos.length : 0;
  const dropped = stored - list.todos.length;
  return dropped > 0
    ? `${dropped} of ${stored} entries cannot be read and are left out`
    : "some fields of entries cannot be read and are left out";
}
