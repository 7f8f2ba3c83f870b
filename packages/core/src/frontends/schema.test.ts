import { describe, expect, it } from 'vitest';
import { parseFields } from '../validation.ts';
import { PublishFrontendBody } from './schema.ts';

describe('a publish body', () => {
  it.each(['not a url', '', 'https://', 'http://[::1'])(
    'refuses %j as a url with a field error, not a crash',
    (url) => {
      expect(parseFields(PublishFrontendBody, { expected_version: 1, url })).toEqual({
        success: false,
        errors: [{ path: '/url', message: 'url must be an absolute URL' }],
      });
    },
  );

  it.each([
    ['ftp://web.example.com/', 'url must be http or https'],
    ['https://user:pw@web.example.com/', 'url must not carry credentials'],
  ])('refuses %s', (url, message) => {
    expect(parseFields(PublishFrontendBody, { expected_version: 1, url })).toEqual({
      success: false,
      errors: [{ path: '/url', message }],
    });
  });
});
