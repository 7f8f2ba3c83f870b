import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

/**
 * A server address with credentials in it (`https://user:password@host`) is refused, naming its
 * cluster and never quoting the address: fetch refuses such an address anyway, with an error that
 * quotes it whole, into refusals and logs.
 */
function refuseCredentialsInServer(config: KubeConfig, path: string): void {
  const cluster = config.getCurrentCluster();
  let server: URL;
  try {
    server = new URL(cluster?.server ?? '');
  } catch {
    return;
  }
  if (server.username || server.password) {
    throw new Error(
      `kubeconfig ${path}: the server address of cluster "${cluster?.name}" carries credentials (its user info, not repeated here); give them as the context's user instead`,
    );
  }
}

/**
 * A kubeconfig file (the local stack writes `.svc/kubeconfig`) at `context`, or at its current
 * context. A context it does not have is refused by name; the file's content is never quoted.
 */
export function kubeConfigFromFile(path: string, context?: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(readFileSync(path, 'utf8'));
  if (context !== undefined) {
    if (!config.getContextObject(context)) {
      const known = config.getContexts().map((c) => `"${c.name}"`);
      throw new Error(
        `kubeconfig ${path} has no context "${context}" (it has ${known.join(', ') || 'none'})`,
      );
    }
    config.setCurrentContext(context);
  }
  refuseCredentialsInServer(config, path);
  return config;
}

/**
 * The context a kubeconfig file would be used at: `context` (which it must have), or its current
 * one. What is wrong is said without quoting the file: it holds credentials.
 */
export function kubeconfigContext(path: string, context?: string): string {
  let config: KubeConfig;
  try {
    const text = readFileSync(path, 'utf8');
    config = new KubeConfig();
    config.loadFromString(text);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new Error(
      typeof code === 'string' ? `cannot read kubeconfig ${path} (${code})` : `${path} is not a kubeconfig`,
    );
  }
  const name = context ?? config.getCurrentContext();
  if (!name) throw new Error(`kubeconfig ${path} has no current context: name one`);
  if (!config.getContextObject(name)) {
    const known = config.getContexts().map((c) => `"${c.name}"`);
    throw new Error(`kubeconfig ${path} has no context "${name}" (it has ${known.join(', ') || 'none'})`);
  }
  config.setCurrentContext(name);
  refuseCredentialsInServer(config, path);
  return name;
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
