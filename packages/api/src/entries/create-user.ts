/**
 * Creates a user straight in the table (or gives an existing one a new password, ending their sign-ins): how the first Admin of a `password`
 * installation is made (an `oidc` installation maps its provider's groups instead). The password
 * is read from standard input, never from the command line.
 * `AWS_REGION=… TABLE_NAME=… JOB_QUEUE_URL=… PREVIEW_URL_TEMPLATE=… npm run user:create -- --username alice --admin < password.txt`
 */
import { text } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import { Auth, systemClock } from '@svc/core';
import { operatorStores } from './operator-stores.ts';

const { values } = parseArgs({
  options: { username: { type: 'string' }, admin: { type: 'boolean', default: false } },
});
const username = values.username ?? '';
if (!Auth.usernameShape.test(username)) {
  console.error('usage: npm run user:create -- --username <a-z0-9._-> [--admin] < password-file');
  process.exit(2);
}
const password = (await text(process.stdin)).replace(/\r?\n$/, '');
if (password.length < 12) {
  console.error('the password (standard input) must be at least 12 characters');
  process.exit(2);
}
const stores = operatorStores('user:create');
await Auth.provisionUser(
  { users: stores.users, passwords: Auth.passwordHashing() },
  {
    username,
    grants: values.admin ? Auth.grantsOfRole(Auth.Role.Admin) : [],
    password,
    now: systemClock.now(),
  },
);
process.stdout.write(`${JSON.stringify({ username, subject: `user:${username}`, admin: values.admin })}\n`);
