import { describe, expect, it } from 'vitest';
import { jsonLog } from './log.ts';

describe('the log', () => {
  it('writes each entry as one JSON line, its level and message first', () => {
    const lines: string[] = [];
    jsonLog((line) => lines.push(line))({ level: 'warn', msg: 'job failed', attempt: 2 });
    expect(lines).toEqual(['{"level":"warn","msg":"job failed","attempt":2}']);
  });

  it('takes only entries with a known level and a message (checked when the code is compiled)', () => {
    const log = jsonLog(() => {});
    // @ts-expect-error: a level the log does not know
    log({ level: 'loud', msg: 'x' });
    // @ts-expect-error: no level
    log({ msg: 'x' });
    // @ts-expect-error: no message
    log({ level: 'info' });
  });
});
