#!/usr/bin/env node
const HELP = `todo-continuation: keeps AI agents working through their todo lists.

Usage: todo-continuation <command> [options]

Commands arrive with the runtime; run --help on each.
`;
process.stdout.write(HELP);
