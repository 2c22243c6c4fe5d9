import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { replaceFileDurably } from "../store/file/atomic.js";
import type { LoadedConfig } from "./load.js";

/**
 * Trust, as direnv does it: nothing a repository's config asks to run runs
 * until the user has trusted that exact file. The record lives in the user's
 * own config folder, keyed by the file's path, holding the SHA-256 of its
 * content; any edit to the file needs trusting again.
 */

export interface TrustEntry {
  path: string;
  sha256: string;
  at: number;
}

interface TrustFile {
  version: 1;
  trusted: TrustEntry[];
}

/** `$XDG_CONFIG_HOME/todo-continuation`, else `~/.config/todo-continuation`. */
export function userConfigDir(env: Record<string, string | undefined>, home = homedir()): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && xdg.trim() !== "" ? xdg : join(home, ".config");
  return join(resolve(base), "todo-continuation");
}

export function trustFilePath(env: Record<string, string | undefined>, home = homedir()): string {
  return join(userConfigDir(env, home), "trusted.json");
}

export function contentHash(content: string): string {
  return createHash("sha256").update(content).digest("hex");
}

function readTrust(path: string): TrustFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, trusted: [] };
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not valid JSON; fix or delete it, then trust again`);
  }
  const list = (raw as { trusted?: unknown })?.trusted;
  if (!Array.isArray(list)) throw new Error(`${path} has no "trusted" list; fix or delete it`);
  const trusted: TrustEntry[] = [];
  for (const entry of list) {
    const e = entry as Partial<TrustEntry>;
    if (typeof e?.path === "string" && typeof e.sha256 === "string" && typeof e.at === "number") {
      trusted.push({ path: e.path, sha256: e.sha256, at: e.at });
    }
  }
  return { version: 1, trusted };
}

function writeTrust(path: string, file: TrustFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // A refused write (no space) keeps the old record and leaves no temporary.
  replaceFileDurably(path, Buffer.from(`${JSON.stringify(file, null, 2)}\n`), 0o600);
}

export type TrustStatus =
  | { trusted: true; why: "recorded" | "home" }
  | { trusted: false; why: "never" | "changed" };

export interface TrustOptions {
  env: Record<string, string | undefined>;
  home?: string;
}

/**
 * Whether a loaded config may run its commands. A config file directly in
 * the user's home folder is theirs, so it is trusted; any other needs a
 * record whose hash matches the content read.
 */
export function trustStatus(loaded: LoadedConfig, options: TrustOptions): TrustStatus {
  const home = resolve(options.home ?? homedir());
  if (dirname(resolve(loaded.path)) === home) return { trusted: true, why: "home" };
  const entry = readTrust(trustFilePath(options.env, home)).trusted.find(
    (e) => e.path === resolve(loaded.path),
  );
  if (entry === undefined) return { trusted: false, why: "never" };
  return entry.sha256 === contentHash(loaded.content)
    ? { trusted: true, why: "recorded" }
    : { trusted: false, why: "changed" };
}

/** Records the config's current content as trusted (replacing an older record for the file). */
export function trust(loaded: LoadedConfig, options: TrustOptions & { now: number }): TrustEntry {
  const path = trustFilePath(options.env, options.home);
  const file = readTrust(path);
  const entry = {
    path: resolve(loaded.path),
    sha256: contentHash(loaded.content),
    at: options.now,
  };
  file.trusted = [...file.trusted.filter((e) => e.path !== entry.path), entry];
  writeTrust(path, file);
  return entry;
}

/** Removes the record for a config file; returns whether there was one. */
export function revoke(configPath: string, options: TrustOptions): boolean {
  const path = trustFilePath(options.env, options.home);
  const file = readTrust(path);
  const target = resolve(configPath);
  const kept = file.trusted.filter((e) => e.path !== target);
  if (kept.length === file.trusted.length) return false;
  writeTrust(path, { version: 1, trusted: kept });
  return true;
}
