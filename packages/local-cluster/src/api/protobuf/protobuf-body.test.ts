import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { decodeProtobufObject } from './protobuf-body.ts';

interface CapturedBody {
  command: string;
  protobuf: string;
  json?: Record<string, unknown>;
}

const captured = (
  JSON.parse(readFileSync(new URL('./kubectl-1.32-bodies.json', import.meta.url), 'utf8')) as {
    bodies: CapturedBody[];
  }
).bodies;
const bytesOf = (b: CapturedBody) => Buffer.from(b.protobuf, 'base64');
const withJson = captured.filter((b) => b.json !== undefined);

// Hand-built bodies use raw field numbers, independent of the decoder's declarations.
const VARINT = 0;
const FIXED64 = 1;
const LENGTH = 2;
const FIXED32 = 5;
const tag = (field: number, wire: number) => (field << 3) | wire;

function message(build: (w: protobuf.Writer) => void): Uint8Array {
  const w = protobuf.Writer.create();
  build(w);
  return w.finish();
}

function envelope(apiVersion: string, kind: string, raw: Uint8Array, extra?: (w: protobuf.Writer) => void) {
  const typeMeta = message((w) =>
    w.uint32(tag(1, LENGTH)).string(apiVersion).uint32(tag(2, LENGTH)).string(kind),
  );
  const unknown = message((w) => {
    w.uint32(tag(1, LENGTH)).bytes(typeMeta).uint32(tag(2, LENGTH)).bytes(raw);
    extra?.(w);
  });
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
}

/** Fields a newer client might send: one of each wire type. */
function unknownFields(w: protobuf.Writer, first: number): void {
  w.uint32(tag(first, VARINT)).uint64(1234567890123);
  w.uint32(tag(first + 1, FIXED64)).fixed64(42);
  w.uint32(tag(first + 2, LENGTH)).bytes(message((m) => m.uint32(tag(1, LENGTH)).string('nested')));
  w.uint32(tag(first + 3, FIXED32)).fixed32(7);
}

function failure(body: Uint8Array): ApiError | 'decoded' {
  try {
    decodeProtobufObject(body);
    return 'decoded';
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

/** A fixed xorshift sequence, so a failing case can be replayed. */
function randomBytes(seed: number) {
  let state = seed;
  return (length: number) =>
    Buffer.from(
      Array.from({ length }, () => {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        return (state >>> 0) % 256;
      }),
    );
}

describe('protobuf request bodies', () => {
  it.each(withJson.map((b) => [b.command, b] as const))(
    '`%s` decodes to the JSON kubectl prints for it',
    (_command, body) => {
      expect(decodeProtobufObject(bytesOf(body))).toEqual(body.json);
    },
  );

  it('decodes the SelfSubjectAccessReview of `kubectl auth can-i`', () => {
    const review = captured.find((b) => b.command.startsWith('kubectl auth can-i'));
    expect(review).toBeDefined();
    expect(decodeProtobufObject(bytesOf(review as CapturedBody))).toEqual({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'fixture', verb: 'create', resource: 'pods' } },
    });
  });

  it('skips unknown fields of every wire type in the envelope, the object and nested messages', () => {
    const metadata = message((w) => {
      w.uint32(tag(1, LENGTH)).string('newer');
      unknownFields(w, 90);
      w.uint32(tag(11, LENGTH)).bytes(
        message((e) => e.uint32(tag(1, LENGTH)).string('team').uint32(tag(2, LENGTH)).string('a')),
      );
    });
    const spec = message((w) => {
      w.uint32(tag(1, LENGTH)).string('kubernetes');
      unknownFields(w, 50);
    });
    const raw = message((w) => {
      unknownFields(w, 20);
      w.uint32(tag(1, LENGTH)).bytes(metadata).uint32(tag(2, LENGTH)).bytes(spec);
    });
    expect(decodeProtobufObject(envelope('v1', 'Namespace', raw, (w) => unknownFields(w, 10)))).toEqual({
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: 'newer', labels: { team: 'a' } },
      spec: { finalizers: ['kubernetes'] },
    });
  });

  it('writes times as RFC 3339, 64-bit integers as numbers, and keeps set pointers at zero', () => {
    const creation = message((w) =>
      w.uint32(tag(1, VARINT)).int64(1_700_000_000).uint32(tag(2, VARINT)).int32(5),
    );
    const metadata = message((w) => {
      w.uint32(tag(1, LENGTH)).string('p');
      w.uint32(tag(7, VARINT)).int64(3); // generation
      w.uint32(tag(8, LENGTH)).bytes(creation);
      w.uint32(tag(10, VARINT)).int64(0); // deletionGracePeriodSeconds, a pointer
    });
    const container = message((w) => w.uint32(tag(1, LENGTH)).string('c').uint32(tag(2, LENGTH)).string('i'));
    const spec = message((w) => {
      w.uint32(tag(2, LENGTH)).bytes(container);
      w.uint32(tag(4, VARINT)).int64(0); // terminationGracePeriodSeconds, a pointer
      w.uint32(tag(11, VARINT)).bool(false); // hostNetwork, a plain bool: dropped as omitempty does
    });
    const raw = message((w) => w.uint32(tag(1, LENGTH)).bytes(metadata).uint32(tag(2, LENGTH)).bytes(spec));
    expect(decodeProtobufObject(envelope('v1', 'Pod', raw))).toEqual({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: {
        name: 'p',
        generation: 3,
        creationTimestamp: '2023-11-14T22:13:20Z',
        deletionGracePeriodSeconds: 0,
      },
      spec: { containers: [{ name: 'c', image: 'i' }], terminationGracePeriodSeconds: 0 },
    });
  });

  it('answers 400 naming the field for a time outside RFC 3339', () => {
    const creation = message((w) => w.uint32(tag(1, VARINT)).int64(9_000_000_000_000));
    const metadata = message((w) =>
      w.uint32(tag(1, LENGTH)).string('n').uint32(tag(8, LENGTH)).bytes(creation),
    );
    const error = failure(
      envelope(
        'v1',
        'Namespace',
        message((w) => w.uint32(tag(1, LENGTH)).bytes(metadata)),
      ),
    );
    expect(error).toMatchObject({
      code: 400,
      message: expect.stringContaining('metadata.creationTimestamp'),
    });
  });

  it('answers 400 for every truncation of a real body that cuts into the object', () => {
    for (const body of captured) {
      const bytes = bytesOf(body);
      // kubectl ends the envelope with empty contentEncoding and contentType (fields 3 and 4).
      expect([...bytes.subarray(-4)]).toEqual([0x1a, 0x00, 0x22, 0x00]);
      for (let length = 0; length < bytes.length - 4; length++) {
        expect(failure(bytes.subarray(0, length)), `${body.command}, first ${length} bytes`).toMatchObject({
          code: 400,
        });
      }
    }
  });

  it('answers 400 for a body without the k8s\\0 prefix', () => {
    const json = Buffer.from('{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"x"}}');
    expect(failure(json)).toMatchObject({ code: 400, message: expect.stringContaining('k8s\\0') });
  });

  it('answers 4xx, never anything else, for random bytes and corrupted real bodies', () => {
    const random = randomBytes(0x5eed);
    const outcomes = new Set<number | string>();
    for (let i = 0; i < 2000; i++) {
      const garbage = Buffer.concat([Buffer.from('k8s\0', 'latin1'), random(i % 200)]);
      const outcome = failure(garbage);
      outcomes.add(outcome === 'decoded' ? outcome : outcome.code);
    }
    for (const body of captured) {
      for (let i = 4; i < bytesOf(body).length; i++) {
        const corrupted = bytesOf(body);
        corrupted[i] = (corrupted[i] ?? 0) ^ 0xff;
        const outcome = failure(corrupted);
        outcomes.add(outcome === 'decoded' ? outcome : outcome.code);
      }
    }
    expect([...outcomes].filter((o) => o !== 'decoded' && o !== 400 && o !== 415)).toEqual([]);
    expect(outcomes).toContain(400);
  });

  it('answers 415 for a kind it does not read, naming those it does', () => {
    const raw = message((w) =>
      w.uint32(tag(1, LENGTH)).bytes(message((m) => m.uint32(tag(1, LENGTH)).string('e'))),
    );
    const error = failure(envelope('v1', 'Event', raw));
    expect(error).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
    expect((error as ApiError).message).toContain('Namespace, ConfigMap, Secret');
    expect((error as ApiError).message).toContain('not v1 Event');
  });

  it('answers 415 for an encoded envelope and 400 for one without a kind', () => {
    const raw = message((w) => w.uint32(tag(1, LENGTH)).bytes(new Uint8Array()));
    const gzip = envelope('v1', 'Namespace', raw, (w) => w.uint32(tag(3, LENGTH)).string('gzip'));
    expect(failure(gzip)).toMatchObject({ code: 415 });
    expect(failure(envelope('v1', '', raw))).toMatchObject({ code: 400 });
  });
});
