import { describe, expect, it } from 'vitest';
import { cursors, pageByName } from './paging.ts';

const key = 'unit-test-cursor-key-of-32-characters';
const seal = cursors(key);
const events = (id: string) => ({ partition: `events#${id}` });
const position = { pk: 'C#c-1', sk: 'EV#ev-2' };

describe('sealed cursors', () => {
  it('open to the position they were sealed with, for their own list', () => {
    expect(seal.open(events('c-1'), seal.seal(events('c-1'), position))).toEqual(position);
  });

  it('open to nothing for another list, another filter or another installation', () => {
    const cursor = seal.seal(events('c-1'), position);
    expect(seal.open(events('c-2'), cursor)).toBeUndefined();
    expect(seal.open({ ...events('c-1'), filter: 'project=demo' }, cursor)).toBeUndefined();
    expect(cursors(`${key}-other`).open(events('c-1'), cursor)).toBeUndefined();
  });

  it('open to nothing when made or altered by hand', () => {
    const cursor = seal.seal(events('c-1'), position);
    const handMade = Buffer.from(JSON.stringify(position)).toString('base64url');
    const altered = `${cursor.slice(0, -2)}${cursor.endsWith('A') ? 'B' : 'A'}${cursor.slice(-1)}`;
    for (const bad of [handMade, altered, 'AAAA', '', 'not a cursor!', 'x'.repeat(5000)]) {
      expect(seal.open(events('c-1'), bad)).toBeUndefined();
    }
  });

  it('never begin with a dash, which a command line takes for a flag', () => {
    const sealed = Array.from({ length: 512 }, (_, i) =>
      seal.seal(events('c-1'), { ...position, sk: `EV#${i}` }),
    );
    expect(sealed.filter((cursor) => !/^[A-Za-z0-9]/.test(cursor))).toEqual([]);
    const unmarked = sealed.map((cursor) => cursor.slice(1));
    expect(unmarked.filter((cursor) => seal.open(events('c-1'), cursor) !== undefined)).toEqual([]);
  });

  it('need a key of at least 32 characters', () => {
    expect(() => cursors('short')).toThrow(/at least 32/);
  });
});

describe('paging an in-memory list', () => {
  const items = ['a', 'b', 'c'].map((name) => ({ name }));
  const sealed = { cursors: seal, list: { components: 'demo' } };

  it('pages by name with sealed cursors bound to the list', () => {
    const first = pageByName(items, { limit: 2, after: null }, sealed);
    expect(first?.items).toEqual([{ name: 'a' }, { name: 'b' }]);
    const after = first?.next_cursor ?? null;
    expect(pageByName(items, { limit: 2, after }, sealed)).toEqual({
      items: [{ name: 'c' }],
      next_cursor: null,
    });
    expect(pageByName(items, { limit: 2, after }, { ...sealed, list: { components: 'other' } })).toBeNull();
  });
});
