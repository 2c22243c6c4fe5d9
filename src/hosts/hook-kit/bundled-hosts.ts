/**
 * The hosts whose hook process the build bundles into `dist/hook/<host>.cjs`
 * (`scripts/bundle-hooks.mjs` checks that this list and its table agree): the
 * hook entry knows them without looking for the file, a syscall every hook
 * process would pay.
 */
export const BUNDLED_HOOK_HOSTS: readonly string[] = [
  "claude-code",
  "codex",
  "copilot",
  "gemini",
  "qwen",
];
