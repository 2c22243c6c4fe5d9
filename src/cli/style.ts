/** Terminal colour: it lives in ui/ (the demo uses it too); the CLI takes it here. */
export * from "../ui/style.js";
