/**
 * Checks real answers against the service's OpenAPI document as a validating proxy (Prism) does:
 * the route and status are documented, the media type matches, the body fits the schema with
 * every format checked (`uri` is an RFC 3986 URI, so a template with `{placeholders}` is not one),
 * and a redirect carries the `Location` it documents.
 */
import type { HttpAnswer } from '@svc/local/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is arbitrary JSON walked by path
export type Json = Record<string, any>;

export function contractChecker(document: () => Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const exercised = new Set<string>();

  /** Validates a real answer against the schema the document gives for its route and status. */
  function conforms(method: string, path: string, answer: HttpAnswer): void {
    const operation = document().paths[path]?.[method];
    expect(operation, `${method} ${path} is documented`).toBeDefined();
    const response = operation.responses[String(answer.status)];
    expect(response, `${method} ${path} documents status ${answer.status}`).toBeDefined();
    for (const header of Object.keys(response.headers ?? {})) {
      expect(answer.headers.get(header), `${method} ${path} ${answer.status} sends ${header}`).toBeTruthy();
    }
    const [type, media] = Object.entries(response.content ?? {})[0] ?? [];
    if (type === undefined) {
      expect(answer.body).toBeNull();
    } else {
      expect(answer.headers.get('content-type')).toContain(type);
      const schema = (media as Json).schema.$ref
        ? document().components.schemas.Problem
        : (media as Json).schema;
      const validate = ajv.compile(schema);
      expect(
        validate(answer.body),
        `${method} ${path} ${answer.status}: ${ajv.errorsText(validate.errors)}`,
      ).toBe(true);
    }
    exercised.add(`${method} ${path}`);
  }

  return { ajv, conforms, exercised };
}
