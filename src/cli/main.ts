#!/usr/bin/env node
import { loadHookProcess } from "../hosts/hook-kit/loader.js";

const argv = process.argv.slice(2);
// `hook <host>` runs once per agent event, so it starts the host's hook alone
// (from the bundled hook entry), without loading the rest of the CLI. Anything
// else, and a host without hooks, goes to the dispatcher.
const code =
  argv[0] === "hook" ? await (await loadHookProcess(argv[1]))(argv[1], argv.slice(2)) : null;
if (code !== null) {
  process.exitCode = code;
} else {
  // A reader that goes away (`| head`) is not an error worth a stack trace. (Not set up for a
  // hook: touching process.stdout creates its stream, which a hook spares itself.)
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  const [{ runCli }, { processIo }] = await Promise.all([import("./run.js"), import("./io.js")]);
  process.exitCode = await runCli(argv, processIo());
}
