import type { Server } from 'node:http';
import { type Http2Bindings, type HttpBindings, serve } from '@hono/node-server';

type Fetch = (request: Request, env: HttpBindings) => Response | Promise<Response>;

/** Serves the app on Node; resolves once listening, rejects when the port is taken. */
export function listenNode(fetch: Fetch, hostname: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        hostname,
        port,
        fetch: async (request: Request, env: HttpBindings | Http2Bindings) => {
          const response = await fetch(request, env as HttpBindings);
          // A refused oversized body is left unread, so the connection cannot carry another request.
          if (response.status === 413 && 'shouldKeepAlive' in env.outgoing)
            env.outgoing.shouldKeepAlive = false;
          return response;
        },
      },
      () => resolve(server as Server),
    ) as Server;
    server.once('error', reject);
  });
}
