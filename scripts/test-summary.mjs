// Prints vitest's JSON report as one plain closing line, "unit: N passed, N failed, N skipped",
// which CI reads to count the tests that ran.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2] ?? '.tmp/vitest.json', 'utf8'));
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`unit: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
process.exit(report.numFailedTests > 0 || report.numTotalTests === 0 ? 1 : 0);
