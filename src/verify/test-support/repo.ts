import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A real git repository of `files` committed files in 40 folders, for tests and the bench. */
export function makeRepo(files: number, prefix = "tc-verify-repo-"): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  for (let i = 0; i < files; i++) {
    const dir = join(root, `d${i % 40}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.txt`), `file ${i}\n`);
  }
  writeFileSync(join(root, ".gitignore"), "ignored/\n");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, stdio: "ignore" });
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init");
  return root;
}
