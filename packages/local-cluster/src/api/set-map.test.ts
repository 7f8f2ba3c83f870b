import { describe, expect, it } from 'vitest';
import { addTo, removeFrom } from './set-map.ts';

describe('an index of sets', () => {
  it('drops an entry once its last value goes, and leaves the others', () => {
    const index = new Map<string, Set<string>>();
    addTo(index, 'preview.svc/composition=c-1', 'staging/a');
    addTo(index, 'preview.svc/composition=c-1', 'staging/b');
    addTo(index, 'app=web', 'staging/a');
    removeFrom(index, 'preview.svc/composition=c-1', 'staging/a');
    expect([...index.keys()]).toEqual(['preview.svc/composition=c-1', 'app=web']);
    removeFrom(index, 'preview.svc/composition=c-1', 'staging/b');
    removeFrom(index, 'unknown', 'staging/b');
    expect([...index.entries()]).toEqual([['app=web', new Set(['staging/a'])]]);
  });
});
