import { readFileSync } from 'node:fs';
import { errorCatalog } from '@svc/core';
import { describe, expect, it } from 'vitest';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The API serves the catalog itself at /docs/errors.md (where problem types link); the repository's
// document must say the same.
describe('docs/errors.md', () => {
  it.each(Object.entries(errorCatalog))('documents %s with its status and title', (code, entry) => {
    expect(doc).toMatch(
      new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${entry.status}\\s*\\|\\s*${literal(entry.title)}\\s*\\|`),
    );
  });
});
