// Loaded with `node --require` (and by trace-loads.mjs): at exit, prints the CommonJS files the
// process loaded (`LOADED <url>`) and the Node modules it loaded after this file (`BUILTINS <names>`).
const { writeSync } = require("node:fs");
const { pathToFileURL } = require("node:url");

const before = new Set(process.moduleLoadList);
process.on("exit", () => {
  const lines = Object.keys(require.cache).map((file) => `LOADED ${pathToFileURL(file).href}`);
  const builtins = process.moduleLoadList
    .filter((name) => !before.has(name) && name.startsWith("NativeModule "))
    .map((name) => name.slice("NativeModule ".length));
  lines.push(`BUILTINS ${builtins.join(" ")}`);
  writeSync(2, `${lines.join("\n")}\n`);
});
