import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ImageReference, componentNamedLike as namedLike, parseImage, readImage } from './images.ts';

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
    expect(readImage('nginx:1').problem).toMatch(/not fully qualified/);
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

describe('the component an image is named for', () => {
  const components = ['service-a', 'service-b', 'service-c'];
  const componentNamedLike = (reference: string, among: readonly string[]) => {
    const { image } = readImage(reference);
    return image && namedLike(image, among);
  };

  it("is the component named like the image's last path segment, whatever the registry, tag or digest", () => {
    expect(componentNamedLike('registry.example.com/demo/service-c:2.0.0', components)).toBe('service-c');
    expect(componentNamedLike(`localhost:5000/service-a@${digest}`, components)).toBe('service-a');
    expect(componentNamedLike('ghcr.io/org/team/service-b:v2-crash', components)).toBe('service-b');
  });

  it('is none when no component has that name, or only a part of the path does', () => {
    expect(componentNamedLike('registry.example.com/demo/service-z:1', components)).toBeNull();
    expect(componentNamedLike('registry.example.com/service-c/api:1', components)).toBeNull();
    expect(componentNamedLike('registry.example.com/demo/my-service-c:1', components)).toBeNull();
  });

  it('is none for what is not an image reference', () => {
    expect(componentNamedLike('service-c', components)).toBeNull();
    expect(componentNamedLike('nginx:1', ['nginx'])).toBeNull();
  });
});

describe('reading an image once', () => {
  it('answers its parts, or why it is not an image, from one match', () => {
    expect(readImage(`localhost:5000/team/app:v1@${digest}`)).toEqual({
      image: parseImage(`localhost:5000/team/app:v1@${digest}`),
      problem: null,
    });
    expect(readImage('nginx:1')).toEqual({
      image: null,
      problem: expect.stringMatching(/not fully qualified/),
    });
  });

  it('refuses a schema field with the same message', () => {
    expect(v.safeParse(ImageReference, 'nginx:1').issues?.[0]?.message).toBe(readImage('nginx:1').problem);
    expect(v.is(ImageReference, 'registry.example.com/demo/service-b:2.0.0')).toBe(true);
  });
});
