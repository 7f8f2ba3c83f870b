// Standalone local cluster for experiments with kubectl:
//   node packages/local-cluster/src/main.ts --port 6443 --data-dir .svc/cluster --kubeconfig /tmp/kubeconfig

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type LocalClusterOptions, startLocalCluster } from './cluster.ts';

const { values } = parseArgs({
  options: {
    host: { type: 'string' },
    port: { type: 'string', default: '6443' },
    'gateway-port': { type: 'string', default: '8082' },
    'data-dir': { type: 'string' },
    'pod-ready-delay-ms': { type: 'string' },
    token: { type: 'string' },
    'preview-domain': { type: 'string' },
    kubeconfig: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  process.stdout.write(
    'usage: main.ts [--host 127.0.0.1] [--port 6443] [--gateway-port 8082] [--data-dir DIR]\n' +
      '               [--pod-ready-delay-ms 1000] [--token T] [--preview-domain preview.localhost] [--kubeconfig FILE]\n',
  );
  process.exit(0);
}

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`--${name} must be a non-negative integer, got "${value}"\n`);
    process.exit(2);
  }
  return n;
}

const options: LocalClusterOptions = {};
if (values.host) options.host = values.host;
const port = int('port', values.port);
if (port !== undefined) options.port = port;
const gatewayPort = int('gateway-port', values['gateway-port']);
if (gatewayPort !== undefined) options.gatewayPort = gatewayPort;
if (values['data-dir']) options.dataDir = values['data-dir'];
const delay = int('pod-ready-delay-ms', values['pod-ready-delay-ms']);
if (delay !== undefined) options.podReadyDelayMs = delay;
// One identity, an admin (`system:masters`), as the whole cluster's key.
if (values.token) options.users = [{ token: values.token, name: 'admin', groups: ['system:masters'] }];
if (values['preview-domain']) options.previewDomain = values['preview-domain'];

const cluster = await startLocalCluster(options);
if (values.kubeconfig) writeFileSync(values.kubeconfig, cluster.kubeconfig());
process.stdout.write(`local cluster API ${cluster.url}\n`);
if (cluster.gatewayUrl) process.stdout.write(`preview gateway ${cluster.gatewayUrl}\n`);
if (values.kubeconfig) process.stdout.write(`kubeconfig written to ${values.kubeconfig}\n`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    void cluster.stop().then(() => process.exit(0));
  });
}
