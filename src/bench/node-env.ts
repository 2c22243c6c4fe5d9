/**
 * The environment hook processes and their bare-`node` baseline are spawned with in the
 * benchmarks: this process's, without what makes Node's own start slower on some machines only.
 * `NODE_EXTRA_CA_CERTS` makes every Node process parse a CA bundle before it runs anything (about
 * 32 ms for a 220 KB bundle on the machine the README's figures come from): both sides would pay
 * it, which hides a hook's own cost in the ratio.
 */
export function benchNodeEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}
