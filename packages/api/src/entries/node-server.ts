import type { IncomingMessage, Server } from 'node:http';
import { type Http2Bindings, type HttpBindings, serve } from '@hono/node-server';

type Fetch = (request: Request, env: HttpBindings) => Response | Promise<Response>;

/**
 * How much of a refused body is read and dropped before the connection closes. Closing with the
 * client still sending resets the connection, and a reset can reach the client before it has read
 * the 413: it sees a broken pipe instead. Past either bound the connection closes anyway.
 */
const drainBound = { bytes: 64 * 1024 * 1024, ms: 5_000 } as const;

/** Resolves once the request body has been read to its end, or a bound of {@link drainBound} passed. */
function drained(incoming: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (incoming.readableEnded || incoming.destroyed) return resolve();
    let bytes = 0;
    // A reader of the body the app let go of (a chunked body refused part-way) pauses the stream
    // when its queue is full; the drain keeps it flowing.
    const keepFlowing = () => setImmediate(() => incoming.resume());
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > drainBound.bytes) done();
    };
    const done = () => {
      clearTimeout(timer);
      incoming.off('data', onData).off('pause', keepFlowing).off('end', done).off('error', done);
      resolve();
    };
    const timer = setTimeout(done, drainBound.ms);
    incoming.on('data', onData).on('pause', keepFlowing).once('end', done).once('error', done);
    incoming.resume();
  });
}

/**
 * The 413 goes out at once, with its length and `Connection: close`, so the client has the whole
 * answer; the response ends, and the connection closes, only once the body is drained.
 */
async function closingAfterDrain(response: Response, incoming: IncomingMessage): Promise<Response> {
  const body = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  headers.set('connection', 'close');
  headers.set('content-length', String(body.byteLength));
  let sent = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(body);
        return;
      }
      await drained(incoming);
      controller.close();
    },
  });
  return new Response(stream, { status: response.status, headers });
}

/** Serves the app on Node; resolves once listening, rejects when the port is taken. */
export function listenNode(fetch: Fetch, hostname: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        hostname,
        port,
        fetch: async (request: Request, env: HttpBindings | Http2Bindings) => {
          const response = await fetch(request, env as HttpBindings);
          if (response.status !== 413 || !('shouldKeepAlive' in env.outgoing)) return response;
          return closingAfterDrain(response, (env as HttpBindings).incoming);
        },
      },
      () => resolve(server as Server),
    ) as Server;
    server.once('error', reject);
  });
}
