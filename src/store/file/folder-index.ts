import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { STATE_FOLDER } from "./paths.js";
import { MARK } from "./preserve.js";

/**
 * The entries of the store's folders, each folder read once (asynchronously)
 * for a whole scan: looking a file up is then a set lookup instead of a system
 * call, and preserved copies are grouped by the file they copy, so finding a
 * scope's copies does not walk the folder again.
 */
export class FolderIndex {
  readonly #folders = new Map<string, Folder>();

  /** Reads `dirs` not read yet (missing ones read as empty). */
  async load(dirs: Iterable<string>): Promise<void> {
    const wanted = [...new Set(dirs)].filter((dir) => !this.#folders.has(dir));
    const read = await Promise.all(wanted.map(readFolder));
    wanted.forEach((dir, i) => {
      this.#folders.set(dir, new Folder(read[i]!));
    });
  }

  /** A loaded folder's entries, for listing (throws for one not loaded: a bug, not a state). */
  entries(dir: string): Dirent[] {
    return this.#folder(dir).dirents;
  }

  /** A folder's entries when it was loaded, else undefined. */
  loaded(dir: string): Dirent[] | undefined {
    return this.#folders.get(dir)?.dirents;
  }

  has(dir: string, name: string): boolean {
    return this.#folder(dir).names.has(name);
  }

  /** The entries of `dir` that may be preserved copies of its file `name`. */
  copyCandidates(dir: string, name: string): readonly string[] {
    return this.#folder(dir).copies.get(name) ?? [];
  }

  /** Loads the whole tree a listing reads: the todo folder, the state folder and their sub-folders. */
  async loadTree(todoDir: string, stateDir: string): Promise<void> {
    await this.load([todoDir]);
    const subfolders = (base: string) =>
      this.entries(base)
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
        .map((entry) => join(base, entry.name));
    const stateIsFolder = this.entries(todoDir).some(
      (entry) => entry.name === STATE_FOLDER && entry.isDirectory(),
    );
    await this.load([...subfolders(todoDir), ...(stateIsFolder ? [stateDir] : [])]);
    if (stateIsFolder) await this.load(subfolders(stateDir));
  }

  #folder(dir: string): Folder {
    const folder = this.#folders.get(dir);
    if (folder === undefined) throw new Error(`FolderIndex: ${dir} was not loaded`);
    return folder;
  }
}

class Folder {
  readonly dirents: Dirent[];
  readonly names: Set<string>;
  /** Names holding the copy mark, under every prefix that ends before a mark. */
  readonly copies = new Map<string, string[]>();

  constructor(dirents: Dirent[]) {
    this.dirents = dirents;
    this.names = new Set(dirents.map((d) => d.name));
    for (const name of this.names) {
      for (let at = name.indexOf(MARK); at > 0; at = name.indexOf(MARK, at + 1)) {
        const base = name.slice(0, at);
        const group = this.copies.get(base);
        if (group === undefined) this.copies.set(base, [name]);
        else group.push(name);
      }
    }
  }
}

async function readFolder(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw error;
  }
}
