/**
 * Issues a machine token straight into the table: how the first Admin token of an installation is
 * made. Needs AWS credentials for the table and the same environment as the functions:
 * `AWS_REGION=… TABLE_NAME=… JOB_QUEUE_URL=… PREVIEW_URL_TEMPLATE=… CURSOR_KEY=… npm run token:issue -- --subject ops --role admin`
 */
import { parseArgs } from 'node:util';
import { runtimeFromEnvironment } from '@svc/aws';
import { addSeconds } from '@svc/core';

const { values } = parseArgs({
  options: {
    subject: { type: 'string' },
    role: { type: 'string', default: 'member' },
    'expires-in-days': { type: 'string' },
  },
});
if (!values.subject || (values.role !== 'admin' && values.role !== 'member')) {
  console.error('usage: npm run token:issue -- --subject <name> [--role admin|member] [--expires-in-days N]');
  process.exit(2);
}
const runtime = runtimeFromEnvironment();
const now = runtime.clock.now();
const days = values['expires-in-days'] ? Number(values['expires-in-days']) : null;
const token = await runtime.stores.tokens.issue({
  subject: values.subject,
  role: values.role,
  now,
  expires_at: days ? addSeconds(now, days * 86400).toISOString() : null,
});
process.stdout.write(`${JSON.stringify({ token, subject: values.subject, role: values.role })}\n`);
