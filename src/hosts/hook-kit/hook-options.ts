/**
 * A strict reader of a hook's command-line options: long options that take a value
 * (`--dir x`, `--dir=x`) or none (`--help`), `-h`, and `--` before positionals.
 *
 * It accepts and refuses exactly what `node:util`'s `parseArgs` (strict, positionals
 * allowed) does for such options, which its tests check on generated command lines.
 * It exists because a hook process starts once per agent event, and loading
 * `parseArgs` costs a new process about half a millisecond.
 */

export interface OptionSpec {
  type: "string" | "boolean";
  /** One letter, `-x`: only ever given to boolean options here. */
  short?: string;
}

export interface ReadOptions {
  values: Record<string, string | boolean>;
  positionals: string[];
}

/** What `parseArgs` calls a value it would take for a missing one: it starts with a dash. */
function looksLikeOption(value: string): boolean {
  return value.startsWith("-") && value !== "-";
}

export function readOptions(
  args: readonly string[],
  options: Readonly<Record<string, OptionSpec>>,
): ReadOptions {
  const values: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  const spec = (name: string): OptionSpec => {
    if (!Object.hasOwn(options, name)) throw new Error(`Unknown option '--${name}'`);
    return options[name] as OptionSpec;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const { type } = spec(name);
      if (type === "boolean") {
        if (eq !== -1) throw new Error(`Option '--${name}' does not take an argument`);
        values[name] = true;
      } else if (eq !== -1) {
        values[name] = arg.slice(eq + 1);
      } else {
        const value = args[i + 1];
        if (value === undefined || looksLikeOption(value)) {
          throw new Error(`Option '--${name} <value>' needs a value (write --${name}=<value>)`);
        }
        values[name] = value;
        i++;
      }
      continue;
    }
    if (arg.startsWith("-") && arg !== "-") {
      // Short options, alone or grouped (`-hh`); none of them takes a value here.
      for (const letter of arg.slice(1)) {
        const name = Object.keys(options).find((key) => options[key]?.short === letter);
        if (name === undefined) throw new Error(`Unknown option '-${letter}'`);
        if (spec(name).type !== "boolean") {
          throw new Error(`Option '-${letter}' takes a value: write --${name}=<value>`);
        }
        values[name] = true;
      }
      continue;
    }
    positionals.push(arg);
  }
  return { values, positionals };
}
