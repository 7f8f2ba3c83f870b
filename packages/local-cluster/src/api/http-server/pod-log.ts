// pods/log: the text at once, or followed as the container writes it.

import type { Pod } from '../types.ts';
import type { PodLogRequest, ResourceCall } from './context.ts';
import { boolParam, intParam } from './query.ts';

function logRequest(q: URLSearchParams): PodLogRequest {
  return {
    container: q.get('container') ?? undefined,
    tailLines: intParam(q, 'tailLines'),
    sinceSeconds: intParam(q, 'sinceSeconds'),
    sinceTime: q.get('sinceTime') ?? undefined,
    limitBytes: intParam(q, 'limitBytes'),
    timestamps: boolParam(q, 'timestamps'),
    previous: boolParam(q, 'previous'),
    follow: boolParam(q, 'follow'),
  };
}

export function servePodLog({ deps, api, res, query, rt, namespace }: ResourceCall, name: string): void {
  const pod = api.get(rt, namespace, name) as Pod;
  const request = logRequest(query);
  const text = deps.logs.read(pod, request);
  if (!request.follow) {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.write(text);
  const cancel = deps.logs.follow(
    pod,
    request,
    (chunk) => res.write(chunk),
    () => res.end(),
  );
  res.on('close', cancel);
}
