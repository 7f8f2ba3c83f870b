/**
 * One keep-alive connection pool per cluster. @kubernetes/client-node 2.x builds a new undici Agent
 * for every request (`KubeConfig.applySecurityAuthentication`), so every request opened a
 * connection of its own, and on EKS paid a TLS handshake for it: 50 gets left 51 connections. The
 * config still authenticates each request exactly as the library does; the pool only carries it.
 */
import type { AgentOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { Agent } from 'undici';

type RequestContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];

/** A view of `config` whose requests (API clients and watches alike) all go through `pool`. */
function routedThrough(config: KubeConfig, pool: Agent): KubeConfig {
  const view = Object.create(config) as KubeConfig;
  view.applySecurityAuthentication = async (context: RequestContext) => {
    await config.applySecurityAuthentication(context);
    context.setDispatcher(pool);
  };
  return view;
}

/**
 * Hands out configs that share one pool while the cluster's address and TLS settings stay the
 * same (an EKS token renewal changes neither); a change opens a new pool and closes the old one.
 */
export function connectionPool(): (config: KubeConfig) => Promise<KubeConfig> {
  let current: { key: string; agent: Agent } | undefined;
  return async (config) => {
    const cluster = config.getCurrentCluster();
    const tls: AgentOptions = {};
    await config.applyToHTTPSOptions(tls);
    const options = config.createDispatcherOptions(cluster, tls);
    // No TLS settings: the library uses undici's global dispatcher, which keeps connections alive
    // already. Through a proxy: left to the library.
    if (options.type !== 'agent') return config;
    const key = JSON.stringify([cluster?.server, options.connect]);
    if (current?.key !== key) {
      void current?.agent.close();
      // client-node types the options with its own copy of undici's types; the values are undici's.
      current = {
        key,
        agent: new Agent({ connect: options.connect as NonNullable<Agent.Options['connect']> }),
      };
    }
    return routedThrough(config, current.agent);
  };
}
