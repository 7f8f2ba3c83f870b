import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { rbacRules } from './permissions.ts';
import { InstallationSpec } from './schema.ts';

const docs = new URL('../../../../docs/', import.meta.url);
const doc = readFileSync(new URL('installation.md', docs), 'utf8');

describe('docs/installation.md', () => {
  it("shows the RBAC rules of the worker's and the API's roles", () => {
    expect(doc).toContain(`name: preview-composition-worker\nrules:\n${rbacRules('worker')}\n`);
    expect(doc).toContain(`name: preview-composition-api\nrules:\n${rbacRules('api')}\n`);
  });

  it('has an example specification that is valid and shown as it is', () => {
    const example = readFileSync(new URL('installation.example.json', docs), 'utf8');
    expect(v.safeParse(InstallationSpec, JSON.parse(example)).success).toBe(true);
    expect(doc).toContain(`\`\`\`json\n${example}\`\`\``);
  });
});
