import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { extractSnippets, type Snippet } from "./snippets.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * What the examples leave to the reader: their own model, other tools, a
 * place to post a message. Declared loosely so the package's types are what
 * gets checked, not the reader's.
 */
const READER = `
import type { ContinuationRuntime, Scope, StopReason, TokenUsage } from "todo-continuation";
declare global {
  const model: import("ai").LanguageModel;
  const myOtherTools: import("ai").ToolSet;
  const abortSignal: AbortSignal;
  const runtime: ContinuationRuntime;
  const scope: Scope;
  const userInput: string;
  function postAsUserMessage(text: string): Promise<void>;
  function callMyModel(
    text: string,
  ): Promise<{ stopReason: StopReason; usage: Partial<TokenUsage>; waitingOnHuman: boolean }>;
  function resolveMyScope(sessionId?: string, clientName?: string): Scope | null;
  /** An event-driven host's session API (the idle enforcer's example). */
  const host: {
    prompt(sessionId: string, text: string, options: object): Promise<void>;
    todos(sessionId: string): Promise<never[]>;
    busy(sessionId: string): boolean;
    toast(sessionId: string, ms: number): void;
    on(event: string, handler: (id: string, value: any) => unknown): void;
  };
}
`;

/** Packages the examples name that this one does not depend on. */
const OTHER_PACKAGES = `
declare module "@ai-sdk/openai" {
  export function openai(model: string): import("ai").LanguageModel;
}
declare module "@anthropic-ai/claude-agent-sdk" {
  type HookInput = { hook_event_name: string; session_id: string; transcript_path: string; cwd: string };
  type HookOutput = { continue?: boolean; decision?: "approve" | "block"; reason?: string };
  type HookCallback = (
    input: HookInput,
    toolUseID: string | undefined,
    options: { signal: AbortSignal },
  ) => Promise<HookOutput>;
  export function query(params: {
    prompt: string;
    options?: {
      cwd?: string;
      env?: { [name: string]: string | undefined };
      abortController?: AbortController;
      hooks?: Partial<
        Record<string, { matcher?: string; hooks: HookCallback[]; timeout?: number }[]>
      >;
    };
  }): AsyncGenerator<{ type: string; [field: string]: unknown }, void>;
}
`;

function allSnippets(): Snippet[] {
  const docs = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md"));
  return ["README.md", ...docs.map((f) => `docs/${f}`)].flatMap((file) =>
    extractSnippets(file, readFileSync(join(ROOT, file), "utf8")),
  );
}

/**
 * Type-checks every snippet as its own module against the package's types as
 * published: `todo-continuation/...` resolves through package.json `exports`
 * to the built declarations (`npm test` builds first).
 */
function typeErrors(snippets: readonly Snippet[]): string[] {
  const virtual = new Map<string, string>();
  virtual.set(join(ROOT, ".doc-snippets", "reader.d.ts"), READER);
  virtual.set(join(ROOT, ".doc-snippets", "packages.d.ts"), OTHER_PACKAGES);
  const names = snippets.map((s, i) => {
    const name = join(ROOT, ".doc-snippets", `${s.file.replace(/[/.]/g, "_")}_${s.line}_${i}.ts`);
    virtual.set(name, s.code);
    return name;
  });
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
    types: ["node"],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    esModuleInterop: true,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => virtual.has(f) || fileExists.call(host, f);
  host.readFile = (f) => virtual.get(f) ?? readFile.call(host, f);
  host.getSourceFile = (f, language, ...rest) => {
    const text = virtual.get(f);
    return text === undefined
      ? getSourceFile.call(host, f, language, ...rest)
      : ts.createSourceFile(f, text, language);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  const wanted = new Set(names);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file !== undefined && wanted.has(d.file.fileName))
    .map((d) => {
      const index = names.indexOf(d.file?.fileName ?? "");
      const snippet = snippets[index] as Snippet;
      const { line } = d.file?.getLineAndCharacterOfPosition(d.start ?? 0) ?? { line: 0 };
      return `${snippet.file}:${snippet.line + line}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
}

describe("the TypeScript examples in the README and docs", () => {
  const snippets = allSnippets();

  it("are found", () => {
    expect(snippets.length).toBeGreaterThan(10);
    expect(snippets.some((s) => s.file === "README.md")).toBe(true);
  });

  // One program for every snippet: a type-check of the package's sources takes a while.
  it("type-check against the package's own types", { timeout: 300_000 }, () => {
    // A control in the same program: a field the result does not have must be caught.
    const control: Snippet = {
      file: "control.md",
      line: 1,
      code: [
        'import { runWithTodos } from "todo-continuation/ai-sdk";',
        "declare const result: Awaited<ReturnType<typeof runWithTodos>>;",
        "console.log(result.stoppedBy, result.stopReason);",
      ].join("\n"),
    };
    const errors = typeErrors([...snippets, control]);
    expect(errors.filter((e) => !e.startsWith("control.md"))).toEqual([]);
    expect(errors.filter((e) => e.startsWith("control.md:3:"))).toHaveLength(1);
  });
});

describe("extractSnippets", () => {
  it("takes ts fences only, with the line each starts on", () => {
    const md = "# T\n```ts\nconst a = 1;\n```\n```json\n{}\n```\n```typescript\nlet b;\n```\n";
    expect(extractSnippets("x.md", md)).toEqual([
      { file: "x.md", line: 3, code: "const a = 1;" },
      { file: "x.md", line: 9, code: "let b;" },
    ]);
  });
});
