// Prints, from vitest's JSON reports (one per pass of .ci/run), the test-case counts per pass and
// in all, and the slowest 15 test files. Usage: node .ci/test-report.mjs <report.json>...
import { existsSync, readFileSync } from 'node:fs';

const passes = process.argv.slice(2).filter((file) => {
  if (existsSync(file)) return true;
  console.log(`(no report ${file}: that pass did not finish)`);
  return false;
});
const files = [];
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const file of passes) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const skipped = report.numPendingTests + report.numTodoTests;
  console.log(`${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped in ${report.numTotalTestSuites} suites`);
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests;
  totals.skipped += skipped;
  for (const result of report.testResults) {
    files.push({ seconds: (result.endTime - result.startTime) / 1000, name: result.name.replace(`${process.cwd()}/`, ''), pass: file });
  }
}
console.log(`test cases in all: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
console.log('\nslowest 15 test files:');
for (const entry of files.sort((a, b) => b.seconds - a.seconds).slice(0, 15)) {
  console.log(`${entry.seconds.toFixed(1).padStart(8)} s  ${entry.name}  (${entry.pass})`);
}
