import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import { createFileStore, type FileStore } from "../../store/file/file-store.js";
import { scopePaths } from "../../store/file/paths.js";
import { OpenCodeContinuation } from "./continuation.js";
import { parseOpenCodeOptions } from "./options.js";
import { FakeOpenCode, turnEvents } from "./test-support/fake-client.js";

/** The plugin on a real file store whose state document breaks mid-episode. */

const OPEN = [
  { content: "write the parser", status: "in_progress", priority: "high" },
  { content: "add tests", status: "pending", priority: "medium" },
];

let dir: string;
let store: FileStore;
let continuation: OpenCodeContinuation;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tc-opencode-unreadable-"));
  store = createFileStore({ root: dir });
});

afterEach(async () => {
  await continuation.dispose();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("OpenCode with an unreadable state document", () => {
  it("sends nothing more before the user's next message and says why, once", async () => {
    const fake = new FakeOpenCode();
    const lines: { level: string; text: string }[] = [];
    continuation = new OpenCodeContinuation({
      client: fake.client(),
      settings: parseOpenCodeOptions({ debounceMs: 0 }),
      store,
      log: (level, text) => lines.push({ level, text }),
    });
    const send = async (events: Parameters<OpenCodeContinuation["handle"]>[0][]) => {
      for (const event of events) void continuation.handle(event);
      await continuation.settle();
    };
    fake.todos.set("s1", OPEN);
    await send(turnEvents("s1").events);
    expect(fake.prompts).toHaveLength(1);

    const scope = resolveScope({ kind: "session", host: "opencode", sessionId: "s1" })!;
    const statePath = scopePaths(store.todoDir, scope).state;
    writeFileSync(statePath, "{ corrupted while the model answers");
    for (let reply = 0; reply < 2; reply++) {
      const part = fake.prompts.at(-1)!.parts[0]!;
      await send(
        turnEvents("s1", {
          userPart: {
            text: part.text,
            synthetic: true,
            ...(part.metadata ? { metadata: part.metadata } : {}),
          },
        }).events,
      );
    }
    expect(fake.prompts).toHaveLength(1);
    const log = await store.readLog(scope);
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "state-unreadable" });
    const warnings = lines.filter((l) => l.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.text).toContain("stored state cannot be trusted");
    expect(warnings[0]!.text).toContain(statePath);
  });
});
