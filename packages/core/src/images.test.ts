import { describe, expect, it } from 'vitest';
import { imageProblem, parseImage } from './images.ts';

const digest = `sha256:${'a'.repeat(64)}`;

describe('image references', () => {
  it.each([
    'registry.example.com/team/app:1.2.3',
    'localhost/app:dev',
    'localhost:5000/app:dev',
    'registry:5000/team/app:v1',
    `registry.example.com/app@${digest}`,
    `registry.example.com/a/b/c:tag@${digest}`,
    'ghcr.io/org/service-b:v2-crash',
  ])('accepts %s', (ref) => {
    expect(parseImage(ref)).not.toBeNull();
  });

  it.each([
    'nginx:1',
    'library/nginx:1',
    'registry.example.com/app',
    'Registry.example.com/app:1',
    'registry.example.com/App:1',
    'registry.example.com/app:',
    'registry.example.com/app@sha256:abc',
    '',
  ])('rejects %j', (ref) => {
    expect(parseImage(ref)).toBeNull();
  });

  it('tells the user to qualify a short name', () => {
    expect(imageProblem('nginx:1')).toMatch(/not fully qualified/);
  });

  it('splits the parts', () => {
    expect(parseImage(`localhost:5000/team/app:v1@${digest}`)).toEqual({
      registry: 'localhost:5000',
      repository: 'team/app',
      tag: 'v1',
      digest,
    });
  });
});
