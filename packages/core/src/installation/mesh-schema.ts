/**
 * Whether the API server would admit the mesh route the worker renders, read from the HTTPRoute
 * CustomResourceDefinition: the version the worker writes is served, and its schema allows a
 * `RegularExpression` header match (Gateway API releases before v1.0's standard channel did not).
 * A read, not a dry run: a server-side dry run is authorized as the write itself (create and
 * patch), which the API's identity is not granted; admission webhooks are therefore not asked.
 */
import type { ClusterObject } from '../cluster/objects.ts';
import type { ClusterPort } from '../cluster/ports.ts';
import { failed, gatewayApiVersion, type Outcome, passed, type Target, unknown } from './probes.ts';

const httpRouteDefinition = 'httproutes.gateway.networking.k8s.io';

type Schema = Record<string, unknown>;

/** The fields from the route to a header match's `type`; `[]` is a list's items. */
const headerTypePath = ['spec', 'rules', '[]', 'matches', '[]', 'headers', '[]', 'type'] as const;

type FieldSchema = { kind: 'enum'; values: string[] } | { kind: 'open' } | { kind: 'missing'; at: string };

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null;

/** What a schema says of the header match type: its enum, anything (no schema there), or no such field. */
function headerTypeSchema(root: unknown): FieldSchema {
  let node: unknown = root;
  const walked: string[] = [];
  for (const step of headerTypePath) {
    if (!isSchema(node)) return { kind: 'open' };
    const next = step === '[]' ? node.items : isSchema(node.properties) ? node.properties[step] : undefined;
    if (next === undefined) {
      const open = node['x-kubernetes-preserve-unknown-fields'] === true || !isSchema(node.properties);
      return open ? { kind: 'open' } : { kind: 'missing', at: [...walked, step].join('.') };
    }
    walked.push(step);
    node = next;
  }
  const values = isSchema(node) && Array.isArray(node.enum) ? node.enum.map(String) : null;
  return values ? { kind: 'enum', values } : { kind: 'open' };
}

interface DefinitionVersion {
  name: string;
  served?: boolean;
  schema?: { openAPIV3Schema?: unknown };
}

/** The verdict on a definition read from the cluster (null: there is none). */
function meshSchemaVerdict(definition: ClusterObject | null, evidence: Record<string, unknown>): Outcome {
  if (!definition) {
    return unknown(
      `no CustomResourceDefinition ${httpRouteDefinition} to read, so what the API server admits cannot be seen`,
      evidence,
    );
  }
  const version = gatewayApiVersion.split('/')[1] ?? '';
  const versions = (
    (definition as { spec?: { versions?: DefinitionVersion[] } }).spec?.versions ?? []
  ).filter((v) => v.served !== false);
  const served = versions.find((v) => v.name === version);
  const seen = { ...evidence, served_versions: versions.map((v) => v.name) };
  if (!served)
    return failed(`${httpRouteDefinition} does not serve ${version}, the version the worker writes`, seen);
  const type = headerTypeSchema(served.schema?.openAPIV3Schema);
  const verdict = { ...seen, header_match_types: type.kind === 'enum' ? type.values : null };
  if (type.kind === 'missing') {
    return failed(
      `${httpRouteDefinition} ${version} has no field ${type.at}: header matches would be dropped`,
      verdict,
    );
  }
  if (type.kind === 'enum' && !type.values.includes('RegularExpression')) {
    return failed(
      `${httpRouteDefinition} ${version} allows header match types ${type.values.join(', ')} only: the API server would refuse the RegularExpression baggage match of every mesh route (upgrade the Gateway API CRDs)`,
      verdict,
    );
  }
  return passed(
    type.kind === 'enum'
      ? `${httpRouteDefinition} ${version} admits a RegularExpression header match (read from its schema)`
      : `${httpRouteDefinition} ${version} does not restrict header match types (its schema accepts any value there)`,
    verdict,
  );
}

export async function meshSchemaCheck(cluster: ClusterPort, t: Target): Promise<Outcome> {
  const entry = t.profiles[t.baseline.entry_component];
  if (!entry) return failed(`entry component ${t.baseline.entry_component} has no profile`);
  const evidence = {
    definition: httpRouteDefinition,
    parent: `Service ${entry.service.name}:${entry.service.port}`,
    header_match: { type: 'RegularExpression', name: 'baggage' },
  };
  const definition = await cluster.get({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    namespace: '',
    name: httpRouteDefinition,
  });
  return meshSchemaVerdict(definition, evidence);
}
