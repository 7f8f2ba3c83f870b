import { lookup } from 'node:dns/promises';
import { request } from 'node:http';
import { request as requestTls } from 'node:https';
import { isIP } from 'node:net';
import { Checks } from '@svc/core';

/** GETs a preview URL, as the verification check does. */
export type Probe = (url: string) => Promise<Checks.ProbeResult>;

/** The addresses a host name resolves to (every one, as the resolver orders them). */
type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolve: Resolve = (hostname) => lookup(hostname, { all: true, verbatim: true });

export interface ProbeOptions {
  timeoutMs?: number;
  /** Whether loopback, link-local and private addresses may be connected to (the stage says so). */
  privateAddresses?: boolean;
  resolve?: Resolve;
}

/**
 * The one address to connect to: the host's, resolved once here and checked, so the request goes
 * where the check looked (a second lookup could answer otherwise: DNS rebinding). `*.localhost` is
 * loopback (RFC 6761), as browsers and curl have it and Node's resolver does not.
 */
async function checkedAddress(
  hostname: string,
  options: Required<Pick<ProbeOptions, 'privateAddresses' | 'resolve'>>,
): Promise<{ address: string; family: number } | { refused: string }> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const loopback = bare === 'localhost' || bare.endsWith('.localhost');
  const found = loopback
    ? [{ address: '127.0.0.1', family: 4 }]
    : isIP(bare)
      ? [{ address: bare, family: isIP(bare) }]
      : await options.resolve(bare);
  const first = found[0];
  if (!first) return { refused: `${hostname} resolves to no address` };
  if (!options.privateAddresses && found.some((a) => Checks.isPrivateAddress(a.address))) {
    return {
      refused: `${hostname} resolves to a loopback, link-local or private address, which the routing check does not connect to here (the stage's previewPrivateAddresses)`,
    };
  }
  return first;
}

/** An HTTP GET of a preview URL, to an address checked first; bodies over 1 MiB are cut. */
export function httpProbe(options: ProbeOptions = {}): Probe {
  const timeoutMs = options.timeoutMs ?? 5000;
  const rules = {
    privateAddresses: options.privateAddresses ?? false,
    resolve: options.resolve ?? systemResolve,
  };
  return async (url) => {
    const target = new URL(url);
    const to = await checkedAddress(target.hostname, rules).catch((error: unknown) => ({
      refused: `${target.hostname} does not resolve: ${(error as { code?: string }).code ?? 'lookup failed'}`,
    }));
    if ('refused' in to) return { status: null, body: null, error: to.refused };
    return get(target, to, timeoutMs);
  };
}

function get(target: URL, to: { address: string; family: number }, timeoutMs: number) {
  return new Promise<Checks.ProbeResult>((resolve) => {
    const tls = target.protocol === 'https:';
    const send = tls ? requestTls : request;
    const req = send(
      {
        host: to.address,
        family: to.family,
        port: target.port || (tls ? 443 : 80),
        path: `${target.pathname}${target.search}`,
        method: 'GET',
        headers: { host: target.host, accept: 'application/json' },
        // The certificate is checked against the name, though the socket goes to the address.
        ...(tls && !isIP(target.hostname.replace(/^\[|\]$/g, '')) ? { servername: target.hostname } : {}),
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
