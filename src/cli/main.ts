#!/usr/bin/env node
import { processIo } from "./io.js";
import { runCli } from "./run.js";

// A reader that goes away (`| head`) is not an error worth a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2), processIo());
