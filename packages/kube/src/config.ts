import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

/** A kubeconfig file (the local stack writes `.svc/kubeconfig`). */
export function kubeConfigFromFile(path: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(readFileSync(path, 'utf8'));
  return config;
}

export function kubeConfigFromString(yaml: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(yaml);
  return config;
}

/** A kubeconfig for one cluster reached with a bearer token. */
export function tokenKubeConfig(input: {
  name: string;
  server: string;
  caData?: string;
  token: string;
}): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      {
        name: input.name,
        server: input.server,
        ...(input.caData ? { caData: input.caData } : {}),
        skipTLSVerify: false,
      },
    ],
    users: [{ name: input.name, token: input.token }],
    contexts: [{ name: input.name, cluster: input.name, user: input.name }],
    currentContext: input.name,
  });
  return config;
}
