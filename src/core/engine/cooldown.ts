import type { Episode, Limits } from "../types.js";

type CooldownLimits = Pick<Limits, "cooldownBaseMs" | "cooldownMaxMs" | "maxDeliveryFailures">;

/**
 * How long to wait after the latest of `failures` consecutive failed
 * deliveries: the base doubles per failure, capped at the maximum.
 */
export function cooldownDelay(failures: number, limits: CooldownLimits): number {
  const exponent = Math.max(0, failures - 1);
  return Math.min(limits.cooldownBaseMs * 2 ** exponent, limits.cooldownMaxMs);
}

/**
 * True while a failed delivery's cooldown runs, and for the rest of the
 * episode once `maxDeliveryFailures` deliveries failed in a row. A failure
 * without a time cannot be timed out, so it holds too. Comparisons are written
 * so that a NaN anywhere keeps the cooldown on.
 */
export function inCooldown(episode: Episode | null, limits: CooldownLimits, now: number): boolean {
  if (episode === null || episode.failures === 0) return false;
  if (!(episode.failures < limits.maxDeliveryFailures)) return true;
  if (episode.lastFailureAt === null) return true;
  return !(now >= episode.lastFailureAt + cooldownDelay(episode.failures, limits));
}
