import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { lastUserText, reply, text } from "../support/anthropic-server.js";
import { ensureHost, REPO_ROOT } from "../support/host-cache.js";
import { AGENT_SDK_VERSION, runSdk, sdkEnv, sdkSuite } from "./harness.js";

/**
 * What the SDK itself does that the integration relies on, measured on the
 * pinned release with a bare callback of the test's own (not ours).
 */
const suite = sdkSuite();

const REASON = "Keep going: the measurement asks for one more turn.";

describe(`the Claude Agent SDK ${AGENT_SDK_VERSION} itself`, () => {
  it("honours a Stop callback's block, and ends the turn after 8 blocks in a row", async () => {
    const model = await suite.serve(({ turn }) => reply(text(`Stopping (${turn}).`)));
    const project = suite.project();
    let stops = 0;
    const run = await runSdk(project, sdkEnv(project, model, suite.trap()), "Work", {
      hooks: {
        Stop: [
          {
            hooks: [
              async () => {
                stops++;
                return { decision: "block", reason: REASON };
              },
            ],
          },
        ],
      },
    });
    expect(run.error).toBeNull();
    const turns = model.turns();
    // Every answer to a block carries its reason as the newest user text.
    expect(turns.slice(1).every((t) => lastUserText(t).includes(REASON))).toBe(true);
    expect(lastUserText(turns[0] as (typeof turns)[0])).not.toContain(REASON);
    // The cap: 8 blocks are honoured, the 9th Stop ends the turn whatever the callback says.
    expect({ stops, turns: turns.length }).toEqual({ stops: 9, turns: 9 });
  });

  it("offers no todo or task tool unless CLAUDE_CODE_ENABLE_TODO_TOOLS=1", async () => {
    const model = await suite.serve([reply(text("Nothing to do."))]);
    const project = suite.project();
    const offered = async (env: Record<string, string>) => {
      const before = model.turns().length;
      const run = await runSdk(project, env, "Hello");
      expect(run.error).toBeNull();
      const names = (model.turns()[before]?.tools ?? []).map((t) => t.name);
      return ["TodoWrite", "TaskCreate", "TaskUpdate"].filter((n) => names.includes(n));
    };
    const env = sdkEnv(project, model, suite.trap(), "tasks");
    const { CLAUDE_CODE_ENABLE_TODO_TOOLS: _on, ...without } = env;
    expect(await offered(without)).toEqual([]);
    expect(await offered(env)).toEqual(["TaskCreate", "TaskUpdate"]);
    expect(await offered(sdkEnv(project, model, suite.trap(), "todo-write"))).toEqual([
      "TodoWrite",
    ]);
  });

  it("accepts the hooks value by its own types", () => {
    const sdk = join(
      ensureHost("@anthropic-ai/claude-agent-sdk", AGENT_SDK_VERSION),
      "node_modules",
      "@anthropic-ai",
      "claude-agent-sdk",
      "sdk.d.ts",
    );
    const file = join(REPO_ROOT, ".agent-sdk-typecheck.ts");
    const code = [
      `import type { Options } from ${JSON.stringify(sdk.replace(/\.d\.ts$/, ".js"))};`,
      `import { todoContinuationHooks } from ${JSON.stringify(join(REPO_ROOT, "src/hosts/claude-agent-sdk/index.js"))};`,
      "const options: Options = { hooks: todoContinuationHooks() };",
      "// A control: a hook that answers a decision the SDK does not know must be refused.",
      'const bad: Options = { hooks: { Stop: [{ hooks: [async () => ({ decision: "maybe" as const })] }] } };',
      "export { bad, options };",
    ].join("\n");
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      types: ["node"],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    };
    const host = ts.createCompilerHost(options);
    const { getSourceFile, fileExists, readFile } = host;
    host.fileExists = (f) => f === file || fileExists.call(host, f);
    host.readFile = (f) => (f === file ? code : readFile.call(host, f));
    host.getSourceFile = (f, language, ...rest) =>
      f === file
        ? ts.createSourceFile(f, code, language)
        : getSourceFile.call(host, f, language, ...rest);
    const program = ts.createProgram([file], options, host);
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName === file)
      .map((d) => {
        const { line } = d.file?.getLineAndCharacterOfPosition(d.start ?? 0) ?? { line: -1 };
        return `${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
      });
    // Only the control (line 5) fails.
    expect(errors.length, errors.join("\n")).toBeGreaterThan(0);
    expect(errors.filter((e) => !e.startsWith("5:"))).toEqual([]);
  });
});
