import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import type { KubeObject } from '../types.ts';
import { jsonPatch } from './json-patch.ts';
import { fieldSet, fromFieldsV1, serverSideApply, toFieldsV1 } from './managed-fields.ts';
import { mergePatch } from './merge-patch.ts';
import { strategicMergePatch } from './strategic-merge.ts';

const ctx = { builtin: true, apiVersion: 'apps/v1', now: '2026-01-01T00:00:00Z' };

describe('merge patch', () => {
  it('merges objects, replaces lists and deletes nulls', () => {
    expect(mergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null, d: 3 }, l: [3] })).toEqual({
      a: { c: 2, d: 3 },
      l: [3],
    });
  });
});

describe('JSON patch', () => {
  it('supports add, remove, replace, move, copy, test and escaped pointers', () => {
    const doc = { a: [1, 2], 'x/y': { '~k': 1 } };
    const out = jsonPatch(doc, [
      { op: 'add', path: '/a/-', value: 3 },
      { op: 'remove', path: '/a/0' },
      { op: 'replace', path: '/x~1y/~0k', value: 2 },
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'move', from: '/b', path: '/c' },
      { op: 'test', path: '/c/0', value: 2 },
    ]);
    expect(out).toEqual({ a: [2, 3], 'x/y': { '~k': 2 }, c: [2, 3] });
    expect(doc.a).toEqual([1, 2]);
  });

  it('fails a test or a missing path with an API error', () => {
    expect(() => jsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(ApiError);
    expect(() => jsonPatch({ a: 1 }, [{ op: 'remove', path: '/b' }])).toThrow(ApiError);
  });
});

describe('strategic merge patch', () => {
  const pod = {
    spec: {
      containers: [
        { name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }], ports: [{ containerPort: 80 }] },
        { name: 'b', image: 'b:1' },
      ],
      volumes: [{ name: 'v1' }, { name: 'v2' }],
    },
    metadata: { finalizers: ['f1'] },
  };

  it('merges lists by their keys', () => {
    const out = strategicMergePatch(pod, {
      metadata: { finalizers: ['f2'] },
      spec: {
        containers: [
          { name: 'a', image: 'a:2', env: [{ name: 'Y', value: '2' }], ports: [{ containerPort: 81 }] },
        ],
        volumes: [{ name: 'v3' }],
      },
    }) as typeof pod;
    expect(out.spec.containers.map((c) => c.image)).toEqual(['a:2', 'b:1']);
    expect(out.spec.containers[0]?.env?.map((e) => e.name)).toEqual(['X', 'Y']);
    expect(out.spec.containers[0]?.ports?.map((p) => p.containerPort)).toEqual([80, 81]);
    expect(out.spec.volumes.map((v) => v.name)).toEqual(['v1', 'v2', 'v3']);
    expect(out.metadata.finalizers).toEqual(['f1', 'f2']);
  });

  it('honours $patch delete/replace and $setElementOrder', () => {
    const out = strategicMergePatch(pod, {
      spec: {
        $setElementOrder_containers: undefined,
        containers: [{ name: 'b', $patch: 'delete' }],
        volumes: [{ name: 'only' }, { $patch: 'replace' }],
      },
    }) as typeof pod;
    expect(out.spec.containers.map((c) => c.name)).toEqual(['a']);
    expect(out.spec.volumes).toEqual([{ name: 'only' }]);
    const ordered = strategicMergePatch(pod, {
      spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] },
    }) as typeof pod;
    expect(ordered.spec.containers.map((c) => c.name)).toEqual(['b', 'a']);
  });
});

describe('managed fields', () => {
  it('round-trips field sets through FieldsV1', () => {
    const set = fieldSet(
      {
        metadata: { labels: { a: '1' } },
        spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } },
      },
      true,
      false,
    );
    const tree = toFieldsV1(set);
    expect(tree).toEqual({
      'f:metadata': { 'f:labels': { 'f:a': {} } },
      'f:spec': {
        'f:template': {
          'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    });
    expect(fromFieldsV1(tree)).toEqual(set);
  });

  it('removes list items a manager stops applying', () => {
    const config = (containers: string[]): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { template: { spec: { containers: containers.map((name) => ({ name, image: `${name}:1` })) } } },
    });
    const first = serverSideApply(undefined, config(['a', 'b']), 'm', false, ctx);
    const live = {
      ...first.object,
      metadata: { ...first.object.metadata, managedFields: first.managedFields },
    };
    const second = serverSideApply(live, config(['a']), 'm', false, ctx);
    expect(
      (
        second.object.spec as { template: { spec: { containers: { name: string }[] } } }
      ).template.spec.containers.map((c) => c.name),
    ).toEqual(['a']);
  });
});
