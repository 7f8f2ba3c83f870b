import { readFileSync } from 'node:fs';
import { errorCatalog } from '@svc/core';
import { describe, expect, it } from 'vitest';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

describe('docs/errors.md', () => {
  it.each(Object.entries(errorCatalog))('documents %s with its status', (code, entry) => {
    expect(doc).toMatch(new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${entry.status}\\s*\\|`));
  });
});
