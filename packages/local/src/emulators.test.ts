/**
 * The local stack's emulators listen on loopback only: anyone else on the network could otherwise
 * enqueue jobs (fauxqs) or write token hashes into the table (DynamoDB Local). Each emulator is
 * started on its own here, and the interfaces its port listens on are read from the kernel.
 */
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { startDynamoDbLocal } from './dynamodb-local.ts';
import { startSqsEmulator } from './fauxqs.ts';

const loopback = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** `0100007F` → 127.0.0.1; IPv6 as four little-endian words. */
function procAddress(hex: string): string {
  if (hex.length === 8)
    return (hex.match(/../g) ?? [])
      .reverse()
      .map((b) => Number.parseInt(b, 16))
      .join('.');
  const words = (hex.match(/.{8}/g) ?? []).map((w) => (w.match(/../g) ?? []).reverse().join(''));
  const groups = words.join('').match(/.{4}/g) ?? [];
  const text = groups.map((g) => Number.parseInt(g, 16).toString(16)).join(':');
  const mapped = /^0:0:0:0:0:ffff:([0-9a-f]+):([0-9a-f]+)$/.exec(text);
  if (mapped?.[1] && mapped[2]) {
    const v4 = (Number.parseInt(mapped[1], 16) * 65536 + Number.parseInt(mapped[2], 16)) >>> 0;
    return `::ffff:${[24, 16, 8, 0].map((shift) => (v4 >>> shift) & 255).join('.')}`;
  }
  return text === '0:0:0:0:0:0:0:1' ? '::1' : text === '0:0:0:0:0:0:0:0' ? '::' : text;
}

/** Addresses with a listening socket on `port`, as the kernel lists them (Linux). */
function listeningOn(port: number): string[] {
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[3] === '0A' && Number.parseInt(fields[1]?.split(':')[1] ?? '', 16) === port)
      .map((fields) => procAddress(fields[1]?.split(':')[0] ?? '')),
  );
}

/** Whether a connection to `host:port` is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1000 });
    const answer = (accepted: boolean) => {
      socket.destroy();
      resolve(accepted);
    };
    socket.once('connect', () => answer(true));
    socket.once('error', () => answer(false));
    socket.once('timeout', () => answer(false));
  });
}

async function expectLoopbackOnly(endpoint: string): Promise<void> {
  const port = Number(new URL(endpoint).port);
  expect(await accepts('127.0.0.1', port)).toBe(true);
  if (existsSync('/proc/net/tcp')) {
    const addresses = listeningOn(port);
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(loopback, `listening on ${address}`).toContain(address);
  }
  const external = Object.values(networkInterfaces())
    .flat()
    .filter((i) => i && !i.internal && i.family === 'IPv4')
    .map((i) => i?.address as string);
  for (const address of external) expect(await accepts(address, port), address).toBe(false);
}

describe('the local emulators', () => {
  it('fauxqs listens on loopback only', async () => {
    const sqs = await startSqsEmulator();
    try {
      await expectLoopbackOnly(sqs.endpoint);
    } finally {
      await sqs.stop();
    }
  });

  it('DynamoDB Local listens on loopback only', async () => {
    const dynamodb = await startDynamoDbLocal();
    try {
      await expectLoopbackOnly(dynamodb.endpoint);
    } finally {
      await dynamodb.stop();
    }
  }, 60_000);
});
