// A kubeconfig for the local cluster. Written as YAML by hand: the values are a URL and a token,
// both emitted as JSON strings, which YAML reads as double-quoted scalars. The server is plain
// HTTP; @kubernetes/client-node refuses http:// unless TLS verification is marked as skipped.

export function kubeconfigYaml(server: string, token: string | undefined): string {
  const q = (s: string): string => JSON.stringify(s);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '  - name: local',
    '    cluster:',
    `      server: ${q(server)}`,
    '      insecure-skip-tls-verify: true',
    'users:',
    '  - name: local',
    token === undefined ? '    user: {}' : `    user:\n      token: ${q(token)}`,
    'contexts:',
    '  - name: local',
    '    context:',
    '      cluster: local',
    '      user: local',
    '      namespace: default',
    'current-context: local',
    '',
  ].join('\n');
}
