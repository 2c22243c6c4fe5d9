import { describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import { editorCommand, shellArgument } from "./editor.js";

describe("editorCommand", () => {
  it("prefers EDITOR, then VISUAL", () => {
    expect(editorCommand({ EDITOR: "nano", VISUAL: "code --wait" })).toBe("nano");
    expect(editorCommand({ EDITOR: " ", VISUAL: "code --wait" })).toBe("code --wait");
  });

  it("fails with advice when neither is set", () => {
    expect(() => editorCommand({})).toThrow(CliError);
    expect(() => editorCommand({})).toThrow(/set EDITOR/);
  });
});

describe("shellArgument", () => {
  it("quotes for POSIX shells, including embedded quotes", () => {
    expect(shellArgument("/tmp/a b.md", "linux")).toBe("'/tmp/a b.md'");
    expect(shellArgument("it's.md", "linux")).toBe("'it'\\''s.md'");
  });

  it("quotes for cmd.exe", () => {
    expect(shellArgument('C:\\a "b".md', "win32")).toBe('"C:\\a ""b"".md"');
  });
});
