// The preview gateway's HTTP face: takes `Host: <id>.preview.localhost`, routes it through the mesh
// and writes the answer.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../api/http-server/bodies.ts';
import type { Mesh, MeshResponse } from './mesh.ts';

function send(res: ServerResponse, response: MeshResponse): void {
  const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
  res.writeHead(response.status, { ...response.headers, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function createGatewayHandler(mesh: Mesh): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
    }
    const host = headers.host ?? '';
    readBody(req)
      .then((body) =>
        mesh.handlePublic(host, {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers,
          body,
        }),
      )
      .then((response) => send(res, response))
      .catch((error: unknown) => {
        process.stderr.write(`local-cluster gateway: ${(error as Error).stack ?? String(error)}\n`);
        if (!res.headersSent)
          send(res, {
            status: 500,
            headers: { 'content-type': 'application/json' },
            body: { error: 'internal', reason: 'the gateway failed; see its log' },
          });
        else res.destroy();
      });
  };
}
