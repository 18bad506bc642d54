#!/usr/bin/env node
// Builds, runs vitest, and prints the closing line CI reads: "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

// CLI tests run the built CLI (the bundle and its code cache included): build first so dist/ matches src/.
const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
if (build.status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const report = '.vitest-report.json';
rmSync(report, { force: true });
const args = [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
];
const run = spawnSync('npx', [...args, ...process.argv.slice(2)], { stdio: 'inherit' });

function counts() {
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    return {
      passed: json.numPassedTests,
      failed: json.numFailedTests + (json.numRuntimeErrorTestSuites ?? 0),
    };
  } catch {
    return { passed: 0, failed: 1 }; // no report: vitest crashed before writing it
  }
}
const { passed, failed } = counts();
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
