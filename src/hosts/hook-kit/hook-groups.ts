/**
 * The part of a hook installer both Claude Code's and Gemini CLI's settings
 * share (their `hooks` objects have one shape: event -> groups of
 * `{matcher?, hooks: [handler]}`): bringing one event's groups up to date.
 */

type Json = Record<string, unknown>;

/** One event we listen to, and the tools (or sources) it is limited to. */
export interface EventSpec {
  event: string;
  matcher?: string;
}

function sameMatcher(group: Json, spec: EventSpec): boolean {
  const matcher = group.matcher === undefined || group.matcher === "" ? undefined : group.matcher;
  return matcher === spec.matcher;
}

function label(spec: EventSpec): string {
  return spec.matcher === undefined ? `${spec.event} hook` : `${spec.event} hook (${spec.matcher})`;
}

/**
 * One event's groups with our handler brought up to date: the first group
 * with the wanted matcher that holds a handler of ours keeps one handler,
 * `wanted`; every other handler of ours goes (and a group left empty with
 * it); without one, a new group is appended. Other handlers stay as they are.
 * Returns the new groups and one line per change.
 */
export function mergeEventHooks(
  groups: readonly Json[],
  spec: EventSpec,
  wanted: Json,
  isOurs: (handler: unknown) => boolean,
): { groups: Json[]; changes: string[] } {
  let kept = false;
  let updated = false;
  let removed = 0;
  const next: Json[] = [];
  for (const group of groups) {
    const handlers = (group.hooks ?? []) as unknown[];
    if (!handlers.some(isOurs)) {
      next.push(group);
      continue;
    }
    const out: unknown[] = [];
    for (const handler of handlers) {
      if (!isOurs(handler)) {
        out.push(handler);
      } else if (!kept && sameMatcher(group, spec)) {
        kept = true;
        if (JSON.stringify(handler) !== JSON.stringify(wanted)) updated = true;
        out.push(wanted);
      } else {
        removed++;
      }
    }
    if (out.length > 0) next.push({ ...group, hooks: out });
  }
  const changes: string[] = [];
  if (!kept) {
    next.push({
      ...(spec.matcher === undefined ? {} : { matcher: spec.matcher }),
      hooks: [wanted],
    });
    changes.push(`added ${label(spec)}`);
  } else if (updated) {
    changes.push(`updated ${label(spec)}`);
  }
  if (removed > 0) changes.push(`removed ${removed} outdated ${spec.event} hook(s) of ours`);
  return { groups: next, changes };
}
