import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operationSteps, StepName } from '../operations/model.ts';
import { RolloutBlockerCode } from '../rollout/blockers.ts';

const doc = readFileSync(new URL('../../../../docs/orchestration.md', import.meta.url), 'utf8');

/** The first cell of each row of the first table from `marker` on, without its backquotes. */
function firstColumn(marker: string): string[] {
  const section = doc.slice(doc.indexOf(marker));
  const table = section.slice(section.search(/^\|/m)).split('\n\n')[0] ?? '';
  return table
    .split('\n')
    .slice(2)
    .map((row) => row.split('|')[1]?.trim().replaceAll('`', '') ?? '');
}

describe('docs/orchestration.md', () => {
  it('lists every rollout blocker code, and no other', () => {
    expect(firstColumn('## Blocker codes').sort()).toEqual(Object.values(RolloutBlockerCode).sort());
  });

  it('describes every step, and the steps of each operation kind in order', () => {
    expect(firstColumn('| step ').sort()).toEqual(Object.values(StepName).sort());
    // The table's cells are padded to its widest row.
    expect(doc).toContain(`| create, update | ${operationSteps.create.map((s) => `\`${s}\``).join(' → ')} `);
    expect(doc).toContain(operationSteps.destroy.map((s) => `\`${s}\``).join(' → '));
  });
});
