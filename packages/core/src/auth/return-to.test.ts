import { describe, expect, it } from 'vitest';
import { homePath, safeReturnPath } from './return-to.ts';

describe('safeReturnPath', () => {
  it('keeps a path of this service with its query', () => {
    expect(safeReturnPath('/console/catalog')).toBe('/console/catalog');
    expect(
      safeReturnPath('/auth/authorize?client_id=svc-cli&redirect_uri=http%3A%2F%2F127.0.0.1%3A5%2Fcb'),
    ).toBe('/auth/authorize?client_id=svc-cli&redirect_uri=http%3A%2F%2F127.0.0.1%3A5%2Fcb');
    expect(safeReturnPath('/console/compositions?phase=ready#top')).toBe(
      '/console/compositions?phase=ready#top',
    );
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['relative', 'console'],
    ['absolute', 'https://evil.example/'],
    ['scheme-relative', '//evil.example/'],
    ['backslash', '/\\evil.example'],
    ['backslashes', '\\\\evil.example'],
    ['tab', '/\t/evil.example'],
    ['carriage return', '/\r/evil.example'],
    ['line feed', '/\n/evil.example'],
    ['CR LF header injection', '/console\r\nset-cookie: x=1'],
    ['NUL', '/console\u0000'],
    ['encoded slash', '/%2F/evil.example'],
    ['encoded slash, lower case', '/%2f/evil.example'],
    ['encoded backslash', '/%5Cevil.example'],
    ['encoded tab', '/%09/evil.example'],
    ['encoded CR LF', '/console%0d%0aset-cookie:x'],
    ['javascript', 'javascript:alert(1)'],
    ['data', 'data:text/html,hi'],
    ['bad escape', '/console/%E0%A4%A'],
    ['too long', `/${'a'.repeat(2048)}`],
    ['a dot segment before the scheme-relative part', '/.//evil.example'],
    ['a parent segment before it', '/..//evil.example'],
    ['an encoded dot segment', '/%2e//evil.example'],
    ['an encoded parent segment', '/%2E%2e//evil.example'],
    ['a parent segment after a real one', '/console/..//evil.example'],
    ['parent segments past the root', '/console/../..//evil.example'],
    ['a dot segment and a backslash', '/.\\evil.example'],
    ['a dot segment and an encoded slash', '/./%2fevil.example'],
    ['a dot segment and a tab', '/.\t//evil.example'],
    ['a dot segment and a line feed', '/./\n/evil.example'],
    ['dot segments ending in a scheme-relative host with a port', '/././/127.0.0.1:9/'],
  ])('refuses %s', (_name, value) => {
    expect(safeReturnPath(value)).toBe(homePath);
  });

  it('answers the path as normalised, so a browser reads it as we checked it', () => {
    expect(safeReturnPath('/console/../console/catalog')).toBe('/console/catalog');
    expect(safeReturnPath('/console/./%2e/../catalog?x=1')).toBe('/catalog?x=1');
  });

  it('falls back to what the caller names', () => {
    expect(safeReturnPath('//evil.example', '/auth/config')).toBe('/auth/config');
  });
});
