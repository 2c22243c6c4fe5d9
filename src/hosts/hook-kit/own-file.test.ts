import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeOwnFile, writeOwnFile } from "./own-file.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function folder(): string {
  const root = mkdtempSync(join(tmpdir(), "tc-own-file-"));
  roots.push(root);
  return root;
}

const isOurs = (text: string) => text.startsWith("// ours");

describe("a file the integration owns whole", () => {
  it("is added, left as it is, updated, and removed, each said once", async () => {
    const path = join(folder(), "hooks", "ours.json");
    const lines: string[] = [];
    const out = (line: string) => void lines.push(line);
    expect(await writeOwnFile(path, "// ours 1\n", isOurs, out, "Hooks")).toEqual([
      `added ${path}`,
    ]);
    expect(await writeOwnFile(path, "// ours 1\n", isOurs, out, "Hooks")).toEqual([]);
    expect(await writeOwnFile(path, "// ours 2\n", isOurs, out, "Hooks")).toEqual([
      `updated ${path}`,
    ]);
    expect(readFileSync(path, "utf8")).toBe("// ours 2\n");
    expect(await removeOwnFile(path, isOurs, out)).toEqual([`removed ${path}`]);
    expect(await removeOwnFile(path, isOurs, out)).toEqual([]);
    expect(lines).toEqual([
      `Added ${path}`,
      `Hooks already installed at ${path}; nothing changed.`,
      `Updated ${path}`,
      `Removed ${path}`,
      `No todo-continuation file at ${path}; nothing changed.`,
    ]);
  });

  it("never replaces or removes a file someone else wrote", async () => {
    const path = join(folder(), "theirs.json");
    writeFileSync(path, '{"theirs":true}\n');
    await expect(writeOwnFile(path, "// ours\n", isOurs, () => {}, "Hooks")).rejects.toThrow(
      /was not written by todo-continuation; nothing was changed/,
    );
    const lines: string[] = [];
    expect(await removeOwnFile(path, isOurs, (l) => void lines.push(l))).toEqual([]);
    expect(lines).toEqual([`Left ${path} alone: todo-continuation did not write it.`]);
    expect(readFileSync(path, "utf8")).toBe('{"theirs":true}\n');
  });

  it("stops at a path it cannot read instead of taking it for absent", async () => {
    // A folder where the file should be (root reads any file, so EACCES cannot be made here).
    const path = join(folder(), "ours.json");
    mkdirSync(join(path, "inside"), { recursive: true });
    await expect(writeOwnFile(path, "// ours\n", isOurs, () => {}, "Hooks")).rejects.toThrow(
      `${path} could not be read (EISDIR); nothing was changed`,
    );
    await expect(removeOwnFile(path, isOurs, () => {})).rejects.toThrow(/could not be read/);
    expect(existsSync(join(path, "inside"))).toBe(true);
  });
});
