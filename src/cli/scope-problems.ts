import type { Scope, Store, StoreProblem } from "../core/types.js";
import { EXIT_FAILURE } from "./errors.js";
import { hasUnreadable } from "./format/problems.js";

/**
 * Every stored file of a scope that cannot be read (list, state and log), and
 * the exit code that says so. `show`, `why` and `log` all go through here, so
 * each names the same files and fails alike.
 */
export async function scopeProblems(
  store: Store,
  scope: Scope,
): Promise<{ problems: StoreProblem[]; code: number }> {
  const problems = (await store.problems?.(scope)) ?? [];
  return { problems, code: hasUnreadable(problems) ? EXIT_FAILURE : 0 };
}
