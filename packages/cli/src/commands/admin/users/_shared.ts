import { Auth } from '@svc/core';
import type { PositionalSpecs } from '../../../command.ts';
import { invalidArgument } from '../../../errors.ts';

export const username = {
  name: { description: 'User name, e.g. alice.' },
} as const satisfies PositionalSpecs;

export function checkUsername(value: string): string {
  if (!Auth.usernameShape.test(value))
    throw invalidArgument('<name>', 'must be 1–63 characters of a-z 0-9 . _ -');
  return value;
}
