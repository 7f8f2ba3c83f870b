// Reads Kubernetes protobuf request bodies (what kubectl's typed commands and client-go send) into
// the JSON object Go's encoding/json would write for the same Go value, so the rest of the server
// sees exactly what a JSON client with the same intent would have sent.
//
// Wire format: the 4 bytes `k8s\0`, then a runtime.Unknown envelope naming the apiVersion and kind
// and carrying the object's own message in `raw`.

import type protobuf from 'protobufjs';
import { ApiError, badRequest } from '../errors.ts';
import { envelopeType, objectType, readableKinds } from './kubernetes-messages.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = Buffer.from('k8s\0', 'latin1');

const TIME = '.k8s.io.apimachinery.pkg.apis.meta.v1.Time';
const FIELDS_V1 = '.k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1';
const INT_OR_STRING = '.k8s.io.apimachinery.pkg.util.intstr.IntOrString';
const QUANTITY = '.k8s.io.apimachinery.pkg.api.resource.Quantity';

type Json = Record<string, unknown>;

/** A decoded protobufjs message: field name to value, absent fields not own properties. */
type Message = Record<string, unknown>;

/** The JSON object for a protobuf body; 400 if the bytes are not a well-formed envelope and object. */
export function decodeProtobufObject(body: Uint8Array): Json {
  if (body.length < MAGIC.length || !MAGIC.equals(body.subarray(0, MAGIC.length))) {
    throw badRequest(
      `the request body is not ${PROTOBUF_MEDIA_TYPE}: it must start with the 4 bytes "k8s\\0"`,
    );
  }
  const envelope = decodeMessage(envelopeType, body.subarray(MAGIC.length), 'envelope (runtime.Unknown)');
  const typeMeta = (envelope.typeMeta ?? {}) as Message;
  const apiVersion = typeof typeMeta.apiVersion === 'string' ? typeMeta.apiVersion : '';
  const kind = typeof typeMeta.kind === 'string' ? typeMeta.kind : '';
  if (apiVersion === '' || kind === '') {
    throw badRequest(
      'the protobuf envelope must name the object: typeMeta.apiVersion and typeMeta.kind are required',
    );
  }
  if (typeof envelope.contentEncoding === 'string' && envelope.contentEncoding !== '') {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the protobuf envelope's contentEncoding "${envelope.contentEncoding}" is not supported: send the object unencoded`,
    );
  }
  const type = objectType(apiVersion, kind);
  if (!type) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `this local cluster reads ${PROTOBUF_MEDIA_TYPE} bodies of ${readableKinds.join(', ')} only, not ${apiVersion} ${kind}: send it as application/json (e.g. kubectl create -f or apply -f)`,
    );
  }
  const raw = Object.hasOwn(envelope, 'raw') ? envelope.raw : undefined;
  if (!(raw instanceof Uint8Array))
    throw badRequest('the protobuf envelope carries no object: raw is missing');
  const object = toJson(type, decodeMessage(type, raw, `${apiVersion} ${kind}`), '');
  return { kind, apiVersion, ...object };
}

function decodeMessage(type: protobuf.Type, bytes: Uint8Array, what: string): Message {
  try {
    return type.decode(bytes) as unknown as Message;
  } catch (error) {
    // protobufjs throws plain Errors (RangeError for a length past the end, Error for a bad wire type).
    throw badRequest(`the protobuf ${what} is malformed: ${(error as Error).message}`);
  }
}

/** `path` is the JSON path of `message` ("spec.template.spec"), for error messages. */
function toJson(type: protobuf.Type, message: Message, path: string): Json {
  const out: Json = {};
  for (const field of type.fieldsArray) {
    const name = field.name;
    const value = message[name];
    const at = path === '' ? name : `${path}.${name}`;
    if (field.map) {
      const entries = Object.entries((value ?? {}) as Message);
      if (entries.length > 0) {
        out[name] = Object.fromEntries(
          entries.map(([key, entry]) => [key, toJsonValue(field, entry, `${at}[${key}]`)]),
        );
      }
    } else if (field.repeated) {
      const items = (value ?? []) as unknown[];
      if (items.length > 0) out[name] = items.map((item, i) => toJsonValue(field, item, `${at}[${i}]`));
    } else if (Object.hasOwn(message, name)) {
      const converted = toJsonValue(field, value, at);
      // A message on the wire is a Go struct or a set pointer: encoding/json writes it even when empty.
      if (field.options?.['(inline)']) Object.assign(out, converted);
      else if (field.resolvedType || field.options?.['(pointer)'] || !isZero(converted))
        out[name] = converted;
    }
  }
  return out;
}

function isZero(value: unknown): boolean {
  return value === '' || value === 0 || value === false;
}

function toJsonValue(field: protobuf.Field, value: unknown, path: string): unknown {
  const type = field.resolvedType;
  if (type && 'fieldsArray' in type) return messageToJson(type as protobuf.Type, value as Message, path);
  if (field.type === 'bytes') return Buffer.from(value as Uint8Array).toString('base64');
  if (field.type === 'int64' || field.type === 'uint64') return int64(value);
  return value;
}

/** RFC 3339 covers years 0001 to 9999, as Go's time.Time JSON does. */
const EARLIEST_SECONDS = -62_135_596_800;
const LATEST_SECONDS = 253_402_300_799;

/** Messages with their own JSON form in Go (custom MarshalJSON), then plain structs. */
function messageToJson(type: protobuf.Type, message: Message, path: string): unknown {
  switch (type.fullName) {
    case TIME: {
      // metav1.Time writes nothing for the zero time, and JSON null for it.
      if (!Object.hasOwn(message, 'seconds')) return null;
      const seconds = int64(message.seconds);
      if (seconds < EARLIEST_SECONDS || seconds > LATEST_SECONDS) {
        throw badRequest(`${path}: the time is outside the years 0001 to 9999`);
      }
      return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    case INT_OR_STRING:
      return int64(message.type) === 1 ? (message.strVal ?? '') : (message.intVal ?? 0);
    case QUANTITY:
      return message.string ?? '0';
    case FIELDS_V1:
      return fieldsV1(message.Raw, path);
    default:
      return toJson(type, message, path);
  }
}

function fieldsV1(raw: unknown, path: string): unknown {
  const text = raw instanceof Uint8Array ? Buffer.from(raw).toString('utf8') : '';
  try {
    return JSON.parse(text || '{}');
  } catch {
    throw badRequest(`${path}: the field set must be JSON`);
  }
}

/** protobufjs returns 64-bit integers as Long objects (numbers only without the long package). */
function int64(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value && typeof (value as { toNumber?: unknown }).toNumber === 'function') {
    return (value as { toNumber: () => number }).toNumber();
  }
  return 0;
}
