import { spawn } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, BUILT_DIST } from "../test-support/built.js";
import { cachePaths } from "./cache-record.js";
import { makeRepo } from "./test-support/repo.js";
import { alive, waitForWatcher, watcherProcesses } from "./test-support/watchers.js";
import { verifyProject } from "./verify-project.js";
import { setWatching } from "./watch.js";
import { askWatcher, startWatcher, type WatcherOptions } from "./watcher-client.js";
import { fileProblem, watcherFiles } from "./watcher-paths.js";

/**
 * The shared watcher, with real processes on real files: the watcher is the
 * built `dist/verify/watcher-main.js`, the hook is this process (a new
 * `verifyProject` call per stop, as a hook's process makes one). Nothing here
 * is timed: what is checked is which path each stop took.
 */

const MAIN = join(BUILT_DIST, "verify", "watcher-main.js");
const made: string[] = [];
const caches: string[] = [];

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

// This process plays a hook's, which looks once: no watch of its own.
beforeAll(() => setWatching(false));
afterAll(() => setWatching(true));

afterEach(async () => {
  // No watcher outlives its test (vitest must exit, CI must not hang).
  for (const cache of caches.splice(0)) {
    for (const pid of watcherProcesses(cache)) process.kill(pid, "SIGKILL");
  }
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Project {
  repo: string;
  cacheDir: string;
  cacheFile: string;
  watcher: WatcherOptions;
  /** How many times the check ran. */
  runs(): number;
  stop(): ReturnType<typeof verifyProject>;
}

function project(files = 30, watcher: Partial<WatcherOptions> = {}): Project {
  assertBuilt("verify/watcher-main.js");
  const repo = makeRepo(files);
  made.push(repo);
  const cacheDir = temp("tc-watcher-cache-");
  const counter = join(temp("tc-watcher-runs-"), "runs");
  const options: WatcherOptions = {
    folder: join(temp("tc-watchers-"), "w"),
    main: MAIN,
    askTimeoutMs: 2_000,
    ...watcher,
  };
  const settings = {
    command: `echo run >> ${counter}`,
    timeoutMs: 10_000,
    when: "finished" as const,
  };
  const cacheFile = cachePaths(cacheDir, repo, settings.command).cache;
  caches.push(cacheFile);
  return {
    repo,
    cacheDir,
    cacheFile,
    watcher: options,
    runs: () => (existsSync(counter) ? readFileSync(counter, "utf8").split("\n").length - 1 : 0),
    stop: () => verifyProject({ settings, cwd: repo, cacheDir, watcher: options }),
  };
}

/** Verified, with a watcher running and its watch stamped in the cache: the next stop asks it. */
async function watched(p: Project): Promise<number> {
  expect((await p.stop()).via).toBe("ran");
  const pid = await waitForWatcher(p.watcher.folder as string);
  expect((await p.stop()).witness).toBe("stats");
  expect((await p.stop()).witness).toBe("watcher");
  return pid;
}

describe("the shared watcher", () => {
  it("vouches for an unchanged tree, and a change after the verify runs the check again", async () => {
    const p = project();
    await watched(p);
    expect(p.runs()).toBe(1);
    writeFileSync(join(p.repo, "d3", "f3.txt"), "edited\n");
    const after = await p.stop();
    expect(after.via).toBe("ran");
    expect(p.runs()).toBe(2);
    // A new file in a new folder too.
    mkdirSync(join(p.repo, "fresh"));
    writeFileSync(join(p.repo, "fresh", "new.txt"), "new\n");
    expect((await p.stop()).via).toBe("ran");
    expect(p.runs()).toBe(3);
  });

  it("after a kill -9 of the watcher, a stop falls back, stays correct, and a new watcher replaces it", async () => {
    const p = project();
    const pid = await watched(p);
    process.kill(pid, "SIGKILL");
    while (alive(pid)) await sleep(10);
    // Its pid file is left behind, naming a process that is gone.
    expect(existsSync(watcherFiles(p.watcher.folder as string, p.cacheFile).pid)).toBe(true);
    writeFileSync(join(p.repo, "d1", "f1.txt"), "changed while nobody watched\n");
    expect((await p.stop()).via).toBe("ran");
    expect(p.runs()).toBe(2);
    // The next watcher takes over the dead one's pid file.
    const next = await waitForWatcher(p.watcher.folder as string);
    expect(next).not.toBe(pid);
    expect((await p.stop()).witness).toBe("stats");
    expect((await p.stop()).witness).toBe("watcher");
    expect(p.runs()).toBe(2);
  });

  it("a watcher started after the last verify vouches for nothing until a stop has looked", async () => {
    const p = project();
    const pid = await watched(p);
    process.kill(pid, "SIGKILL");
    while (alive(pid)) await sleep(10);
    expect((await p.stop()).witness).toBe("stats");
    await waitForWatcher(p.watcher.folder as string);
    // The cache is stamped with the dead watcher's watch: the new one does not know it.
    expect((await p.stop()).witness).toBe("stats");
    expect((await p.stop()).witness).toBe("watcher");
  });

  it("a watchers' folder cleaned away is made again by the next stop, with a new watcher", async () => {
    const p = project();
    const pid = await watched(p);
    process.kill(pid, "SIGKILL");
    while (alive(pid)) await sleep(10);
    rmSync(p.watcher.folder as string, { recursive: true, force: true });
    expect((await p.stop()).witness).toBe("stats");
    expect(await waitForWatcher(p.watcher.folder as string)).not.toBe(pid);
  });

  it("two hooks racing to start a watcher start one", async () => {
    const p = project();
    expect((await p.stop()).via).toBe("ran");
    await waitForWatcher(p.watcher.folder as string);
    for (const pid of watcherProcesses(p.cacheFile)) process.kill(pid, "SIGKILL");
    rmSync(p.watcher.folder as string, { recursive: true, force: true });
    const script = `import(${JSON.stringify(join(BUILT_DIST, "verify", "watcher-client.js"))}).then((m) => { if (!m.startWatcher(${JSON.stringify(p.watcher)}, ${JSON.stringify(p.cacheFile)})) process.stdout.write("not started"); })`;
    const racers = Array.from({ length: 4 }, () =>
      spawn(process.execPath, ["-e", script], { stdio: "ignore" }),
    );
    await Promise.all(racers.map((r) => new Promise((done) => r.on("exit", done))));
    await waitForWatcher(p.watcher.folder as string);
    await sleep(500);
    expect(watcherProcesses(p.cacheFile)).toHaveLength(1);
  });

  it("exits by itself after its idle time, removing its pid file", async () => {
    const p = project(30, { idleMs: 300 });
    expect((await p.stop()).via).toBe("ran");
    const pid = await waitForWatcher(p.watcher.folder as string);
    const files = watcherFiles(p.watcher.folder as string, p.cacheFile);
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(50);
    expect(alive(pid)).toBe(false);
    expect(existsSync(files.pid)).toBe(false);
  });

  it("exits when its project folder is deleted", async () => {
    // Not from its periodic check (a minute away here): the deletion's own events.
    const p = project(30, { checkMs: 60_000 });
    expect((await p.stop()).via).toBe("ran");
    const pid = await waitForWatcher(p.watcher.folder as string);
    rmSync(p.repo, { recursive: true, force: true });
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(50);
    expect(alive(pid)).toBe(false);
  });

  it("a watcher that does not answer in time sends the stop to the stat witness", async () => {
    const p = project(30, { askTimeoutMs: 50 });
    const pid = await watched(p);
    process.kill(pid, "SIGSTOP");
    try {
      const t0 = Date.now();
      const out = await p.stop();
      expect(out.witness).toBe("stats");
      expect(Date.now() - t0).toBeLessThan(5_000);
      // A change made while it sleeps is seen by the stats.
      writeFileSync(join(p.repo, "d2", "f2.txt"), "edited\n");
      expect((await p.stop()).via).toBe("ran");
    } finally {
      process.kill(pid, "SIGCONT");
    }
    // Awake again, it has the events it missed: the stamp is not vouched for.
    expect((await p.stop()).witness).not.toBe("watcher");
  });

  it("a watcher that never answers times out to the slow path", async () => {
    const p = project(30, { askTimeoutMs: 50 });
    const pid = await watched(p);
    process.kill(pid, "SIGKILL");
    while (alive(pid)) await sleep(10);
    // A live process that passes for the watcher and reads nothing.
    const silent = spawn(
      process.execPath,
      ["-e", "setInterval(() => {}, 1000)", "watcher-main.js"],
      {
        stdio: "ignore",
      },
    );
    try {
      const files = watcherFiles(p.watcher.folder as string, p.cacheFile);
      writeFileSync(files.pid, `${silent.pid}\n${p.repo}\n`);
      await sleep(200);
      const asked = askWatcher(files, { stamp: null, scope: "a".repeat(64) }, 50);
      expect(asked).toEqual({ answer: null, absent: false });
      expect((await p.stop()).witness).toBe("stats");
      // It left no question behind.
      expect(readdirSync(p.watcher.folder as string).filter((n) => n.includes(".q."))).toEqual([]);
    } finally {
      silent.kill("SIGKILL");
    }
  });

  it("an inotify queue overflow never passes for an unchanged tree", async () => {
    // The kernel keeps 16,384 events by default; more than that while the
    // watcher sleeps overflows its queue.
    const p = project(30, { askTimeoutMs: 5_000 });
    const pid = await watched(p);
    process.kill(pid, "SIGSTOP");
    const dir = join(p.repo, "d5");
    try {
      for (let i = 0; i < 9_000; i++) writeFileSync(join(dir, `flood-${i}.tmp`), "");
      for (let i = 0; i < 9_000; i++) rmSync(join(dir, `flood-${i}.tmp`));
    } finally {
      process.kill(pid, "SIGCONT");
    }
    const out = await p.stop();
    expect(out.witness).not.toBe("watcher");
    expect(p.runs()).toBe(1);
  });

  it("answers unknown for a tree beyond its folder limit, and the stop takes the stats", async () => {
    const p = project(30);
    for (let i = 0; i < 1_001; i++) {
      mkdirSync(join(p.repo, `many${i}`));
      writeFileSync(join(p.repo, `many${i}`, "x"), "x");
    }
    expect((await p.stop()).via).toBe("ran");
    await waitForWatcher(p.watcher.folder as string);
    for (let i = 0; i < 3; i++) expect((await p.stop()).witness).toBe("stats");
  });
});

describe("the watchers' folder", () => {
  it("refuses a folder owned by someone else, a symlinked folder, and files that are symlinks", async () => {
    const p = project();
    expect((await p.stop()).via).toBe("ran");
    const folder = p.watcher.folder as string;
    await waitForWatcher(folder);
    const files = watcherFiles(folder, p.cacheFile);
    const request = { stamp: null, scope: "a".repeat(64) };
    expect(askWatcher(files, request, 2_000).answer).not.toBeNull();
    if (process.getuid?.() === 0) {
      chownSync(folder, 65534, 65534);
      expect(askWatcher(files, request, 2_000)).toEqual({ answer: null, absent: false });
      expect(startWatcher(p.watcher, p.cacheFile)).toBe(false);
      chownSync(folder, 0, 0);
      const theirs = join(folder, "theirs");
      writeFileSync(theirs, "unknown\n");
      chownSync(theirs, 65534, 65534);
      expect(fileProblem(theirs)).toContain("belongs to user 65534");
    }
    const link = join(temp("tc-watchers-link-"), "w");
    symlinkSync(folder, link);
    const linked = watcherFiles(link, p.cacheFile);
    expect(askWatcher(linked, request, 2_000)).toEqual({ answer: null, absent: false });
    expect(startWatcher({ ...p.watcher, folder: link }, p.cacheFile)).toBe(false);
    const fake = join(folder, "fake");
    symlinkSync(files.pid, fake);
    expect(fileProblem(fake)).toContain("not a regular file");
  });
});
