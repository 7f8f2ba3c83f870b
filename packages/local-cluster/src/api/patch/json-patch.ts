// JSON patch (RFC 6902) with JSON pointers (RFC 6901).

import { badRequest, invalidPatch } from '../errors.ts';
import { clone, deepEqual, isObject } from '../json.ts';

interface Operation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw invalidPatch(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parent(doc: unknown, tokens: string[], pointer: string): { container: unknown; last: string } {
  let current = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(current)) current = current[arrayIndex(current, token, false, pointer)];
    else if (isObject(current) && token in current) current = current[token];
    else throw invalidPatch(`doc is missing path: "${pointer}"`);
  }
  const last = tokens[tokens.length - 1];
  if (last === undefined) throw invalidPatch(`cannot operate on the document root with "${pointer}"`);
  return { container: current, last };
}

function arrayIndex(array: unknown[], token: string, forAdd: boolean, pointer: string): number {
  if (forAdd && token === '-') return array.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw invalidPatch(`invalid array index "${token}" in "${pointer}"`);
  const i = Number(token);
  if (i > array.length || (!forAdd && i === array.length))
    throw invalidPatch(`index out of range in "${pointer}"`);
  return i;
}

function read(doc: unknown, pointer: string): unknown {
  let current = doc;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(current)) current = current[arrayIndex(current, token, false, pointer)];
    else if (isObject(current) && token in current) current = current[token];
    else throw invalidPatch(`doc is missing path: "${pointer}"`);
  }
  return current;
}

function add(doc: unknown, pointer: string, value: unknown): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const { container, last } = parent(doc, tokens, pointer);
  if (Array.isArray(container)) container.splice(arrayIndex(container, last, true, pointer), 0, value);
  else if (isObject(container)) container[last] = value;
  else throw invalidPatch(`doc is missing path: "${pointer}"`);
  return doc;
}

function remove(doc: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  const { container, last } = parent(doc, tokens, pointer);
  if (Array.isArray(container)) container.splice(arrayIndex(container, last, false, pointer), 1);
  else if (isObject(container) && last in container) delete container[last];
  else throw invalidPatch(`doc is missing path: "${pointer}"`);
  return doc;
}

export function jsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw badRequest('a JSON patch must be an array of operations');
  let doc = clone(target);
  for (const raw of operations) {
    if (!isObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw badRequest('each JSON patch operation needs "op" and "path"');
    }
    const op = raw as unknown as Operation;
    switch (op.op) {
      case 'add':
        doc = add(doc, op.path, clone(op.value));
        break;
      case 'remove':
        doc = remove(doc, op.path);
        break;
      case 'replace':
        read(doc, op.path);
        doc = add(remove(doc, op.path), op.path, clone(op.value));
        break;
      case 'move': {
        const value = read(doc, op.from ?? '');
        doc = add(remove(doc, op.from ?? ''), op.path, value);
        break;
      }
      case 'copy':
        doc = add(doc, op.path, clone(read(doc, op.from ?? '')));
        break;
      case 'test':
        if (!deepEqual(read(doc, op.path), op.value)) throw invalidPatch(`testing value ${op.path} failed`);
        break;
      default:
        throw badRequest(`unknown JSON patch operation "${String(raw.op)}"`);
    }
  }
  return doc;
}
