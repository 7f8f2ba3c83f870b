import { request } from 'node:http';
import { request as requestTls } from 'node:https';
import type { Verification } from '@svc/core';

/** GETs a preview URL, as the verification check does. */
export type Probe = (url: string) => Promise<Verification.ProbeResult>;

/**
 * An HTTP GET that treats `*.localhost` as loopback (RFC 6761) — browsers and curl do, Node's
 * resolver does not — so local preview URLs work without touching /etc/hosts.
 */
export function httpProbe(options: { timeoutMs?: number } = {}): Probe {
  const timeoutMs = options.timeoutMs ?? 5000;
  return (url) =>
    new Promise((resolve) => {
      const target = new URL(url);
      const loopback = target.hostname === 'localhost' || target.hostname.endsWith('.localhost');
      const send = target.protocol === 'https:' ? requestTls : request;
      const req = send(
        {
          host: loopback ? '127.0.0.1' : target.hostname,
          port: target.port || (target.protocol === 'https:' ? 443 : 80),
          path: `${target.pathname}${target.search}`,
          method: 'GET',
          headers: { host: target.host, accept: 'application/json' },
          servername: target.hostname,
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= 1 << 20) chunks.push(chunk);
          });
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {}
            resolve({ status: res.statusCode ?? null, body, error: null });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', (error) => resolve({ status: null, body: null, error: error.message }));
      req.end();
    });
}
