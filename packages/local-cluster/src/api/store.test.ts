import { describe, expect, it } from 'vitest';
import { Registry } from './registry.ts';
import { parseLabelSelector } from './selectors.ts';
import { Store } from './store.ts';
import type { KubeObject } from './types.ts';

const pods = new Registry().byResource('', 'pods');

function pod(namespace: string, name: string, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace, name, labels, uid: `${namespace}-${name}` },
  };
}

const names = (objects: readonly KubeObject[]) =>
  objects.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);

describe('the store', () => {
  it('keeps its lists in key order as objects come, change and go', () => {
    const store = new Store();
    for (const name of ['m', 'c', 'x']) store.put(pods, pod('b', name));
    store.put(pods, pod('a', 'z'));
    expect(names(store.list(pods))).toEqual(['a/z', 'b/c', 'b/m', 'b/x']);
    expect(names(store.list(pods, 'b'))).toEqual(['b/c', 'b/m', 'b/x']);
    for (const name of ['a', 'n', 'y']) store.put(pods, pod('b', name));
    store.remove(pods, pod('b', 'm'));
    store.put(pods, pod('b', 'c', { changed: 'yes' }));
    expect(names(store.list(pods))).toEqual(['a/z', 'b/a', 'b/c', 'b/n', 'b/x', 'b/y']);
    expect(names(store.list(pods, 'b'))).toEqual(['b/a', 'b/c', 'b/n', 'b/x', 'b/y']);
    expect(store.list(pods, 'b')[1]?.metadata.labels).toEqual({ changed: 'yes' });
  });

  it('lets a caller iterate a list while it deletes what it iterates', () => {
    const store = new Store();
    for (const name of ['a', 'b', 'c', 'd']) store.put(pods, pod('ns', name));
    const seen: string[] = [];
    for (const object of store.list(pods, 'ns')) {
      seen.push(object.metadata.name ?? '');
      store.remove(pods, object);
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
    expect(store.list(pods, 'ns')).toEqual([]);
  });

  it('reads the objects carrying a selector’s label from the index, in key order, following label changes', () => {
    const store = new Store();
    store.put(pods, pod('ns', 'b', { app: 'web', composition: 'c1' }));
    store.put(pods, pod('ns', 'a', { app: 'web', composition: 'c1' }));
    store.put(pods, pod('ns', 'c', { app: 'web', composition: 'c2' }));
    store.put(pods, pod('other', 'a', { app: 'web', composition: 'c1' }));
    const c1 = parseLabelSelector('app=web,composition=c1');
    expect(names(store.candidates(pods, 'ns', parseLabelSelector('composition=c1')))).toEqual([
      'ns/a',
      'ns/b',
    ]);
    expect(names(store.candidates(pods, undefined, parseLabelSelector('composition=c1')))).toEqual([
      'ns/a',
      'ns/b',
      'other/a',
    ]);
    store.put(pods, pod('ns', 'b', { app: 'web', composition: 'c2' }));
    store.remove(pods, pod('ns', 'a'));
    expect(names(store.candidates(pods, 'ns', c1))).toEqual([]);
    expect(names(store.candidates(pods, 'ns', parseLabelSelector('composition=c2')))).toEqual([
      'ns/b',
      'ns/c',
    ]);
  });

  it('answers a selector without an equality requirement with the whole list, for the caller to match', () => {
    const store = new Store();
    store.put(pods, pod('ns', 'a', { app: 'web' }));
    store.put(pods, pod('ns', 'b'));
    expect(names(store.candidates(pods, 'ns', parseLabelSelector('!app')))).toEqual(['ns/a', 'ns/b']);
    expect(names(store.candidates(pods, 'ns', parseLabelSelector('app in (web,db)')))).toEqual([
      'ns/a',
      'ns/b',
    ]);
  });
});
