import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACT_COVERAGE_DIR, UNRESOLVED } from './contract-check.js';

/** Where the merged summary goes, beside the JSON test report. */
const SUMMARY_FILE = join(CONTRACT_COVERAGE_DIR, '..', 'contract-coverage.json');

/** vitest globalSetup: starts each run with no coverage, and prints what the contract check covered. */
export function setup(): () => void {
  rmSync(CONTRACT_COVERAGE_DIR, { recursive: true, force: true });
  return () => {
    if (!existsSync(CONTRACT_COVERAGE_DIR)) return;
    const pairs = new Set<string>();
    for (const file of readdirSync(CONTRACT_COVERAGE_DIR)) {
      for (const line of readFileSync(join(CONTRACT_COVERAGE_DIR, file), 'utf8').split('\n')) if (line !== '') pairs.add(line);
    }
    const documented = [...pairs].filter((pair) => !pair.startsWith(UNRESOLVED));
    const operations = new Set(documented.map((pair) => pair.slice(0, pair.lastIndexOf(' '))));
    // Collections differ per test file: the operation *kind* (`*.list`, `*.comments.add`) counts the routes exercised.
    const kindOf = (op: string): string => op.replace(/^(?!collections\.|app\.)[^.]+\./, '*.').replace(/^\*\.[^.]+\.(?=[^.]+$)/, '*.<assoc>.');
    const kinds = new Set([...operations].map(kindOf));
    const kindPairs = new Set(documented.map((pair) => `${kindOf(pair.slice(0, pair.lastIndexOf(' ')))}${pair.slice(pair.lastIndexOf(' '))}`));
    const statuses = new Set([...pairs].map((pair) => pair.slice(pair.lastIndexOf(' ') + 1)));
    const summary = {
      operationStatusPairs: documented.length,
      operations: operations.size,
      operationKinds: kinds.size,
      operationKindStatusPairs: kindPairs.size,
      statuses: [...statuses].sort(),
      unresolvedStatuses: [...pairs].filter((pair) => pair.startsWith(UNRESOLVED)).map((pair) => pair.slice(UNRESOLVED.length + 1)).sort(),
      pairs: [...pairs].sort(),
    };
    writeFileSync(SUMMARY_FILE, `${JSON.stringify(summary, null, 2)}\n`);
    console.log(
      `contract check: ${summary.operations} operations (${summary.operationKinds} kinds) and ${summary.operationStatusPairs} operation/status pairs ` +
        `(${summary.operationKindStatusPairs} kind/status pairs) validated; ` +
        `statuses ${summary.statuses.join(' ')}; details in contract-coverage.json`,
    );
  };
}
