import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const docs = new URL('../../../docs/', import.meta.url);

describe('docs/README.md', () => {
  it('indexes every page in docs/, and only those', () => {
    const pages = readdirSync(docs).filter((name) => name.endsWith('.md') && name !== 'README.md');
    const index = readFileSync(new URL('README.md', docs), 'utf8');
    const linked = [...index.matchAll(/\]\(([a-z-]+\.md)\)/g)].map((match) => match[1]);
    expect([...new Set(linked)].sort()).toEqual(pages.sort());
  });
});
