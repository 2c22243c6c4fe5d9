import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NO_PHASE_LINE } from "../../core/dialects/markdown/format.js";
import { renderMarkdown } from "../../core/dialects/markdown/index.js";
import { applyListEdit } from "../../runtime/list-edit.js";
import type { CommandSpec } from "../command.js";
import { editorCommand, runEditor } from "../edit/editor.js";
import { CliError } from "../errors.js";

/** Lines at the top of the file being edited; the markdown reader skips comments. */
export function editHeader(label: string, key: string): string[] {
  return [
    `<!-- Todo list of ${label} (${key}). Save and quit to apply; leave unchanged to cancel. -->`,
    "<!-- Items: - [ ] pending, - [/] in progress, - [x] completed, - [-] cancelled, - [!] task (blocked: reason) -->",
    '<!-- "## Name" starts a phase; "  > text" under an item adds a note; comments like these are ignored. -->',
  ];
}

export const editCommand: CommandSpec = {
  name: "edit",
  summary: "Edit a scope's list as markdown in $EDITOR; the agent is told at its next turn",
  usage: ["edit <scope>"],
  details: [
    "Opens $EDITOR (else $VISUAL) on the list as markdown. A valid edit is saved and a",
    "user-edit reminder is queued in the same write, so the model learns at its next turn",
    "that the user changed its list. An invalid edit is refused with its line number and the",
    "list is left as it was; so is an edit that empties the file (use `clear` for that), and an",
    "edit made while the agent changed the list. A refused edit is kept in a file for reuse.",
  ],
  args: { min: 1, max: 1 },
  examples: ["edit tui", "EDITOR=nano todo-continuation edit 7f3a"],
  async run(ctx) {
    const editor = editorCommand(ctx.io.env);
    const { scope, label } = await ctx.findScope(ctx.positionals[0] ?? "", { allowNew: true });
    const store = await ctx.store();
    const runtime = await ctx.runtime();
    const before = await store.read(scope);
    const empty = before.todos.todos.length === 0 && before.todos.phases.length === 0;
    // Without this line, items typed into an empty file would land in the default phase.
    const original = empty ? `${NO_PHASE_LINE}\n` : renderMarkdown(before.todos);
    const folder = await mkdtemp(join(tmpdir(), "todo-continuation-edit-"));
    const file = join(folder, `${scope.key.replace(/[^a-z0-9-]+/gi, "_")}.md`);
    let keep = false;
    ctx.onClose(async () => {
      if (!keep) await rm(folder, { recursive: true, force: true });
    });
    await writeFile(file, `${editHeader(label, scope.key).join("\n")}\n\n${original}`, "utf8");
    runEditor(editor, file, ctx.io.env);
    const edited = await readFile(file, "utf8");
    const outcome = await applyListEdit(store, scope, before, edited, runtime.now());
    if (outcome.kind === "invalid") {
      keep = true;
      throw new CliError(`invalid edit, line ${outcome.line}: ${outcome.message}`, [
        `  ${outcome.line} | ${outcome.lineText}`,
        "Nothing was changed. Your edit is kept at:",
        `  ${file}`,
      ]);
    }
    if (outcome.kind === "unchanged") {
      if (ctx.global.json) ctx.json({ key: scope.key, label, changed: false });
      else ctx.out(`No changes to ${label}.`);
      return 0;
    }
    if (outcome.kind === "empties") {
      keep = true;
      throw new CliError("the edit removes every item; nothing was changed", [
        `To empty the list on purpose, run: todo-continuation clear ${scope.key}`,
      ]);
    }
    if (outcome.kind === "conflict") {
      keep = true;
      throw new CliError("the list changed while you were editing it; nothing was saved", [
        "Your edit is kept at:",
        `  ${file}`,
        "Run edit again and copy your changes over.",
      ]);
    }
    const { reminder } = outcome;
    if (ctx.global.json) {
      ctx.json({ key: scope.key, label, changed: true, revision: outcome.revision, reminder });
    } else {
      ctx.out(`Saved ${label}. The agent will be told at its next turn:`);
      for (const line of reminder.split("\n")) ctx.out(ctx.style.dim(`  | ${line}`));
    }
    return 0;
  },
};
