// A watch as a stream of JSON lines, as Tables when kubectl asks for them.

import { includeObjectParam, toTable, wantsTable } from '../table.ts';
import type { KubeObject } from '../types.ts';
import type { ResourceCall } from './context.ts';
import { boolParam, intParam } from './query.ts';

export function serveWatch({ deps, req, res, query: q, rt, namespace, selectors }: ResourceCall): void {
  const table = wantsTable(req.headers.accept);
  const include = includeObjectParam(q.get('includeObject'));
  let columnsSent = false;
  let started = false;
  const start = (): void => {
    if (started) return;
    started = true;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  };
  const stop = deps.hub.open(
    {
      rt,
      namespace,
      ...selectors,
      resourceVersion: q.get('resourceVersion') ?? undefined,
      allowBookmarks: boolParam(q, 'allowWatchBookmarks'),
      sendInitialEvents: boolParam(q, 'sendInitialEvents'),
      timeoutSeconds: intParam(q, 'timeoutSeconds'),
    },
    {
      send(event) {
        start();
        let object = event.object;
        if (table && (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED')) {
          // As on a real server, only the first Table of a stream carries the column definitions.
          object = toTable(rt, [event.object as KubeObject], {}, include, !columnsSent);
          columnsSent = true;
        }
        res.write(`${JSON.stringify({ type: event.type, object })}\n`);
      },
      end() {
        start();
        res.end();
      },
    },
  );
  start();
  res.flushHeaders();
  req.socket.setNoDelay(true);
  res.on('close', stop);
}
