// Prints vitest JSON reports as plain lines CI can count: "LABEL: N passed, N failed, N skipped"
// for each report, then "all: …" for their sum. Usage: test-summary.mjs LABEL=FILE [LABEL=FILE …]
import { existsSync, readFileSync } from 'node:fs';

const total = { passed: 0, failed: 0, skipped: 0 };
let ran = 0;
for (const arg of process.argv.slice(2)) {
  const [label, file] = arg.includes('=') ? arg.split('=') : ['unit', arg];
  if (!existsSync(file)) continue; // that suite did not run (an earlier step failed)
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const counts = { passed: report.numPassedTests, failed: report.numFailedTests, skipped: report.numPendingTests + report.numTodoTests };
  console.log(`${label}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  for (const key of Object.keys(total)) total[key] += counts[key];
  ran += report.numTotalTests;
}
console.log(`all: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 || ran === 0 ? 1 : 0);
