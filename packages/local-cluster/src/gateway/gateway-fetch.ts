// Node's resolver does not map `*.localhost` to loopback (browsers and curl do), and `fetch` does
// not let a caller set `Host`. This helper sends a request for a preview URL to the gateway's real
// address with the preview host in the `Host` header.

import { request } from 'node:http';

export interface GatewayFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Fetches `previewUrl` (e.g. `http://abc.preview.localhost:8082/path`) through the gateway at
 * `gatewayUrl` (e.g. `http://127.0.0.1:8082`).
 */
export function gatewayFetch(
  gatewayUrl: string,
  previewUrl: string,
  init: GatewayFetchInit = {},
): Promise<Response> {
  const gateway = new URL(gatewayUrl);
  const target = new URL(previewUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: gateway.hostname.replace(/^\[|\]$/g, ''),
        port: gateway.port || 80,
        method: init.method ?? 'GET',
        path: `${target.pathname}${target.search}`,
        headers: { ...init.headers, host: target.host },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
          }
          const status = res.statusCode ?? 502;
          const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolve(new Response(body, { status, headers }));
        });
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
