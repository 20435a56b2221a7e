import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listOperations, loadSpec } from '../../src/contract/spec.js';
import { handlers, notImplemented } from '../../src/resources/index.js';

const RESULTS = join(import.meta.dirname, '../../test-results');

export function startContractReport(driver: string): string {
  const dir = join(RESULTS, 'contract', driver);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface ContractReport {
  driver: string;
  operations_in_spec: number;
  operations_implemented: number;
  operations_answering_501: number;
  responses_validated: number;
  implemented_not_exercised: string[];
  operations: Record<string, { implemented: boolean; statuses: number[] }>;
}

/** Operations implemented vs. in the contract, and which statuses the suite saw for each. */
export function finishContractReport(driver: string, dir: string): ContractReport {
  const operations = listOperations(loadSpec());
  const seen = new Map<string, Set<number>>();
  let responses = 0;
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line) continue;
      const entry = JSON.parse(line) as { operationId: string | null; status: number };
      responses++;
      const key = entry.operationId ?? '(unknown route)';
      let statuses = seen.get(key);
      if (!statuses) seen.set(key, (statuses = new Set()));
      statuses.add(entry.status);
    }
  }
  const table = handlers as Record<string, unknown>;
  const report: ContractReport = {
    driver,
    operations_in_spec: operations.length,
    operations_implemented: operations.filter((op) => table[op.operationId] && table[op.operationId] !== notImplemented).length,
    operations_answering_501: operations.filter((op) => !table[op.operationId] || table[op.operationId] === notImplemented).length,
    responses_validated: responses,
    implemented_not_exercised: [],
    operations: {},
  };
  for (const op of operations) {
    const implemented = Boolean(table[op.operationId]) && table[op.operationId] !== notImplemented;
    const statuses = [...(seen.get(op.operationId) ?? [])].sort((a, b) => a - b);
    report.operations[op.operationId] = { implemented, statuses };
    if (implemented && !statuses.includes(200)) report.implemented_not_exercised.push(op.operationId);
  }
  writeFileSync(join(RESULTS, `contract-report-${driver}.json`), `${JSON.stringify(report, null, 2)}\n`);
  if (responses > 0) {
    process.stdout.write(
      `\nContract report (${driver}): ${report.operations_implemented} of ${report.operations_in_spec} operations implemented, ` +
        `${report.operations_answering_501} answer 501 not_implemented; ${responses} responses validated against the spec` +
        (report.implemented_not_exercised.length ? `; implemented but never answered 200: ${report.implemented_not_exercised.join(', ')}` : '') +
        `.\n  test-results/contract-report-${driver}.json\n`,
    );
  }
  return report;
}
