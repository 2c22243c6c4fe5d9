import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CopyTarget, joinCopies } from "./copies.js";

let project = 0;
/** A project folder no other test of this file uses (the registry is process-wide). */
const folder = () => `/projects/p${++project}`;

describe("joinCopies", () => {
  it("lets one copy act: the project's, whichever loaded first", () => {
    const dir = folder();
    const user = joinCopies("opencode", dir, "user");
    expect(user.acts()).toBe(true);
    const own = joinCopies("opencode", dir, "project");
    expect([user.acts(), own.acts()]).toEqual([false, true]);
    expect(own.count()).toBe(2);
  });

  it("hands over when the acting copy leaves, and keeps projects and hosts apart", () => {
    const dir = folder();
    const first = joinCopies("opencode", dir, undefined);
    const second = joinCopies("opencode", dir, undefined);
    const elsewhere = joinCopies("opencode", folder(), "user");
    const kilo = joinCopies("kilo", dir, "user");
    expect([first.acts(), second.acts(), elsewhere.acts(), kilo.acts()]).toEqual([
      true,
      false,
      true,
      true,
    ]);
    first.leave();
    expect(second.acts()).toBe(true);
    expect(second.count()).toBe(1);
  });

  it("has exactly one acting copy, the project's when loaded, in any order of joins and leaves (property)", () => {
    const target = fc.constantFrom<CopyTarget>("user", "project", undefined);
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            target.map((t) => ({ join: t })),
            fc.nat(5).map((n) => ({ leave: n })),
          ),
          {
            maxLength: 20,
          },
        ),
        (steps) => {
          const dir = folder();
          const live: { copy: ReturnType<typeof joinCopies>; target: CopyTarget }[] = [];
          for (const step of steps) {
            if ("join" in step)
              live.push({ copy: joinCopies("opencode", dir, step.join), target: step.join });
            else if (live.length > 0) live.splice(step.leave % live.length, 1)[0]?.copy.leave();
            const acting = live.filter((c) => c.copy.acts());
            expect(acting).toHaveLength(live.length === 0 ? 0 : 1);
            // The project's copy whenever one is loaded.
            if (live.some((c) => c.target === "project")) expect(acting[0]?.target).toBe("project");
          }
          for (const { copy } of live) copy.leave();
        },
      ),
      { numRuns: 300 },
    );
  });
});
