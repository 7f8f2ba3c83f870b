/**
 * Issues a machine token straight into the table: how the first Admin token of an installation is
 * made. Needs AWS credentials for the table and the same environment as the functions:
 * `AWS_REGION=… TABLE_NAME=… JOB_QUEUE_URL=… PREVIEW_URL_TEMPLATE=… CURSOR_KEY=… npm run token:issue -- --name ops --role admin`
 */
import { parseArgs } from 'node:util';
import { Auth, addSeconds, systemClock } from '@svc/core';
import { operatorStores } from './operator-stores.ts';

const { values } = parseArgs({
  options: {
    name: { type: 'string' },
    role: { type: 'string', default: 'member' },
    'expires-in-days': { type: 'string' },
  },
});
if (
  !values.name ||
  !/^[a-z0-9][a-z0-9._-]{0,62}$/.test(values.name) ||
  (values.role !== 'admin' && values.role !== 'member')
) {
  console.error(
    'usage: npm run token:issue -- --name <a-z0-9._-> [--role admin|member] [--expires-in-days N]',
  );
  process.exit(2);
}
const stores = operatorStores('token:issue');
const now = systemClock.now();
const days = values['expires-in-days'] ? Number(values['expires-in-days']) : null;
const issued = await Auth.mintToken(stores.tokens, {
  name: values.name,
  grants: Auth.grantsOfRole(values.role),
  createdBy: 'operator',
  now,
  expiresAt: days ? addSeconds(now, days * 86400).toISOString() : null,
});
process.stdout.write(`${JSON.stringify({ token: issued.token, id: issued.id, subject: issued.subject })}\n`);
