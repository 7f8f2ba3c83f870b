import { describe, expect, it } from 'vitest';
import { CreateCompositionBody, UpdateCompositionBody } from './compositions/schema.ts';
import { bodyLimits, bodyProblems, parseFields } from './validation.ts';

const image = 'registry.example.com/demo/service-b:2.0.0';
const create = (extra: Record<string, unknown>) => ({
  project: 'demo',
  baseline: 'staging',
  name: 'feature-x',
  ...extra,
});

const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
};

describe('an array where an object belongs', () => {
  it.each([
    ['overrides: []', { overrides: [] }, '/overrides'],
    ['overrides: [{ image }]', { overrides: [{ image }] }, '/overrides'],
    ['expected_preview_revisions: []', { expected_preview_revisions: [] }, '/expected_preview_revisions'],
    ['an override entry that is an array', { overrides: { 'service-b': [] } }, '/overrides/service-b'],
  ])('is refused on create for %s, naming the field', (_, extra, path) => {
    expect(parseFields(CreateCompositionBody, create(extra))).toEqual({
      success: false,
      errors: [{ path, message: 'must be an object, not an array' }],
    });
  });

  it('is refused for an update body and for a whole body', () => {
    expect(parseFields(UpdateCompositionBody, { expected_generation: 1, overrides: [] })).toMatchObject({
      success: false,
      errors: [{ path: '/overrides' }],
    });
    expect(parseFields(CreateCompositionBody, [])).toMatchObject({ success: false, errors: [{ path: '' }] });
  });

  it('leaves objects and real arrays alone', () => {
    const result = parseFields(CreateCompositionBody, create({ overrides: { 'service-b': { image } } }));
    expect(result).toMatchObject({ success: true, output: { overrides: { 'service-b': { image } } } });
  });
});

describe('override selectors', () => {
  it('reads null as absent, so an override entry as answered can be sent back', () => {
    const result = parseFields(UpdateCompositionBody, {
      expected_generation: 1,
      overrides: { 'service-b': { image, build_id: null } },
    });
    expect(result).toEqual({
      success: true,
      output: {
        expected_generation: 1,
        overrides: { 'service-b': { image } },
        expected_preview_revisions: {},
      },
    });
  });

  it('bounds the number of entries of the override and revision maps', () => {
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`c${i}`, { image }]));
    expect(parseFields(CreateCompositionBody, create({ overrides: many }))).toMatchObject({
      success: false,
      errors: [{ path: '/overrides', message: 'at most 64 entries' }],
    });
  });
});

describe('body problems', () => {
  it('names every reserved key, wherever it is (JSON.parse keeps __proto__ as a key)', () => {
    const body = JSON.parse(
      '{"overrides":{"constructor":{"image":"x"},"__proto__":{"image":"y"}},"list":[{"prototype":1}]}',
    );
    expect(bodyProblems(body)).toEqual({
      tooDeep: false,
      reserved: [
        { path: '/overrides/constructor', message: '"constructor" is a reserved key' },
        { path: '/overrides/__proto__', message: '"__proto__" is a reserved key' },
        { path: '/list/0/prototype', message: '"prototype" is a reserved key' },
      ],
    });
  });

  it(`takes ${bodyLimits.maxDepth} levels of nesting and refuses one more`, () => {
    expect(bodyProblems(nested(bodyLimits.maxDepth)).tooDeep).toBe(false);
    expect(bodyProblems(nested(bodyLimits.maxDepth + 1)).tooDeep).toBe(true);
  });

  it('refuses 100,000 nested arrays without exhausting the stack', () => {
    const body = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(bodyProblems(body).tooDeep).toBe(true);
  });
});
