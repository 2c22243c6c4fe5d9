#!/usr/bin/env node
import { loadHookRunner } from "../hosts/hooks.js";

// A reader that goes away (`| head`) is not an error worth a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

const argv = process.argv.slice(2);
// `hook <host>` runs once per agent event, so it starts the host's hook alone,
// without loading the rest of the CLI. Anything else goes to the dispatcher.
const hook = argv[0] === "hook" ? await loadHookRunner(argv[1]) : null;
if (hook !== null) {
  const { processHookIo } = await import("../hosts/hook-process.js");
  process.exitCode = await hook(argv.slice(2), processHookIo());
} else {
  const [{ runCli }, { processIo }] = await Promise.all([import("./run.js"), import("./io.js")]);
  process.exitCode = await runCli(argv, processIo());
}
