// A kubeconfig for the local cluster. Written as YAML by hand: the values are a URL and a token,
// both emitted as JSON strings, which YAML reads as double-quoted scalars. The server is plain
// HTTP; @kubernetes/client-node refuses http:// unless TLS verification is marked as skipped.

/** `name` names the cluster, the user and the context (default `local`). */
export function kubeconfigYaml(server: string, token: string | undefined, name = 'local'): string {
  const q = (s: string): string => JSON.stringify(s);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `  - name: ${q(name)}`,
    '    cluster:',
    `      server: ${q(server)}`,
    '      insecure-skip-tls-verify: true',
    'users:',
    `  - name: ${q(name)}`,
    token === undefined ? '    user: {}' : `    user:\n      token: ${q(token)}`,
    'contexts:',
    `  - name: ${q(name)}`,
    '    context:',
    `      cluster: ${q(name)}`,
    `      user: ${q(name)}`,
    '      namespace: default',
    `current-context: ${q(name)}`,
    '',
  ].join('\n');
}
