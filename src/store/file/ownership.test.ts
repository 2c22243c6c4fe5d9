import {
  chmodSync,
  chownSync,
  existsSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import { createFileStore } from "./file-store.js";
import { assertOwnFolder, assertSafeAncestors, describeUser } from "./ownership.js";
import { ignoreStoreFolder } from "./self-ignore.js";

/** Another user's folders need chown, so these run only as root (as the test machines do). */
const AS_ROOT = process.getuid?.() === 0;
/** The conventional id of `nobody`. */
const OTHER = 65534;
const TUI = resolveScope({ kind: "tui" })!;
const LIST = { todos: [{ content: "mine", status: "pending" as const }], phases: [], nextId: 1 };

let base: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "tc-owner-"));
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

/** A folder that belongs to another user. */
function foreignFolder(name: string): string {
  const dir = join(base, name);
  mkdirSync(dir, { mode: 0o755 });
  chownSync(dir, OTHER, OTHER);
  return dir;
}

async function expectRefused(root: string, named: RegExp, untouched: string): Promise<void> {
  const store = createFileStore({ root });
  await expect(store.transact(TUI, () => ({ todos: LIST, result: null }))).rejects.toThrow(named);
  await expect(store.read(TUI)).rejects.toThrow(named);
  await expect(store.readLog(TUI)).rejects.toThrow(named);
  await store.close();
  expect(readdirSync(untouched)).toEqual([]);
}

describe.skipIf(!AS_ROOT)("a store folder another user controls", () => {
  it("is refused as the store root, naming the folder and its owner", async () => {
    const theirs = foreignFolder("theirs");
    await expectRefused(
      theirs,
      /refusing the store folder .*theirs: it belongs to user 65534/,
      theirs,
    );
  });

  it("is refused behind a symlinked store root", async () => {
    const theirs = foreignFolder("theirs");
    const root = join(base, "root-link");
    symlinkSync(theirs, root);
    await expectRefused(
      root,
      /root-link \(a symlink to .*theirs\): it belongs to user 65534/,
      theirs,
    );
  });

  it("is refused as the todo folder, a symlink into their folder", async () => {
    const theirs = foreignFolder("theirs");
    const root = join(base, "mine");
    mkdirSync(root);
    symlinkSync(theirs, join(root, "todo"));
    await expectRefused(root, /todo \(a symlink to .*theirs\): it belongs to user 65534/, theirs);
  });

  it("is refused when the symlink itself was planted by them", () => {
    const mine = join(base, "mine");
    mkdirSync(mine);
    const link = join(base, "planted");
    symlinkSync(mine, link);
    lchownSync(link, OTHER, OTHER);
    expect(() => assertOwnFolder(link)).toThrow(/the symlink belongs to user 65534/);
  });

  it("keeps the store's self-ignore file out of their folder", async () => {
    const theirs = foreignFolder("project");
    await expect(ignoreStoreFolder(base, theirs)).rejects.toThrow(/belongs to user 65534/);
    expect(existsSync(join(theirs, ".gitignore"))).toBe(false);
  });
});

describe("a store folder's mode and owner", () => {
  it("refuses a folder every user may write to, unless sticky", async () => {
    const open = join(base, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(() => assertOwnFolder(open)).toThrow(/every user may write to it \(mode 777\)/);
    chmodSync(open, 0o1777);
    expect(() => assertOwnFolder(open)).not.toThrow();
  });

  it("accepts the user's own folders and root's, and one not created yet", async () => {
    const self = process.getuid?.() ?? 0;
    expect(() => assertOwnFolder(base, self)).not.toThrow();
    expect(() => assertOwnFolder(join(base, "missing"), self)).not.toThrow();
    const store = createFileStore({ root: join(base, "new") });
    await store.transact(TUI, () => ({ todos: LIST, result: null }));
    expect((await store.read(TUI)).todos).toEqual(LIST);
    await store.close();
  });

  it("names a user by id and name", () => {
    expect(describeUser(0)).toBe("0 (root)");
    expect(describeUser(987_654)).toBe("987654");
  });
});

describe.skipIf(!AS_ROOT)("the folders above a store", () => {
  /** `<base>/home/<project>/.claude/todo-continuation`, the project owned by `owner`. */
  function projectStore(owner: number): { home: string; project: string; root: string } {
    const home = join(base, "home");
    const project = join(home, "project");
    mkdirSync(join(project, ".claude"), { recursive: true });
    chownSync(project, owner, owner);
    return { home, project, root: join(project, ".claude", "todo-continuation") };
  }

  it("refuses a store below a folder in the home folder that another user owns", () => {
    const { home, root } = projectStore(OTHER);
    expect(() => assertSafeAncestors(root, { self: 0, home })).toThrow(
      /refusing the store folder .*todo-continuation: .*project above it, in your home folder, belongs to user 65534/,
    );
  });

  it("refuses it through a symlink too: the real folders are the ones checked", () => {
    const { home, project } = projectStore(OTHER);
    const link = join(home, "link");
    symlinkSync(project, link);
    expect(() =>
      assertSafeAncestors(join(link, ".claude", "todo-continuation"), { self: 0, home }),
    ).toThrow(/project above it, in your home folder, belongs to user 65534/);
  });

  it("refuses the home folder itself when another user owns it, as ssh does", () => {
    const home = join(base, "home");
    mkdirSync(join(home, "project"), { recursive: true });
    chownSync(home, OTHER, OTHER);
    expect(() => assertSafeAncestors(join(home, "project", "store"), { self: 0, home })).toThrow(
      /home above it, in your home folder, belongs to user 65534/,
    );
  });

  it("accepts a project outside the home folder that another user owns (they control it anyway)", () => {
    const { root } = projectStore(OTHER);
    expect(() =>
      assertSafeAncestors(root, { self: 0, home: join(base, "elsewhere") }),
    ).not.toThrow();
  });

  it("refuses a folder above that every user may write to, anywhere, unless sticky", () => {
    const { home, project, root } = projectStore(0);
    chmodSync(project, 0o777);
    expect(() => assertSafeAncestors(root, { self: 0, home })).toThrow(
      /every user may write to .*project above it \(mode 777\)/,
    );
    expect(() => assertSafeAncestors(root, { self: 0, home: join(base, "elsewhere") })).toThrow(
      /mode 777/,
    );
    chmodSync(project, 0o1777);
    expect(() => assertSafeAncestors(root, { self: 0, home })).not.toThrow();
  });

  it("accepts the user's own folders, root's, /tmp above them, and a store not created yet", () => {
    const { home, root } = projectStore(0);
    expect(() => assertSafeAncestors(root, { self: 0, home })).not.toThrow();
    expect(() => assertSafeAncestors(join(root, "a", "b"), { self: 0, home })).not.toThrow();
    expect(() => assertSafeAncestors(root, { self: undefined, home })).not.toThrow();
  });

  it("the file store refuses such a store before creating anything in it", async () => {
    const { home, project, root } = projectStore(OTHER);
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const store = createFileStore({ root });
      await expect(store.transact(TUI, () => ({ todos: LIST, result: null }))).rejects.toThrow(
        /project above it, in your home folder, belongs to user 65534/,
      );
      await store.close();
      expect(readdirSync(join(project, ".claude"))).toEqual([]);
      await expect(ignoreStoreFolder(project, root)).rejects.toThrow(/belongs to user 65534/);
      expect(readdirSync(join(project, ".claude"))).toEqual([]);
    } finally {
      process.env.HOME = saved;
    }
  });
});
