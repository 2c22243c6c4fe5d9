/** Hook input larger than this is refused (hosts send a few kilobytes). */
export const MAX_HOOK_INPUT_BYTES = 16 * 1024 * 1024;
