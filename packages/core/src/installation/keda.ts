/**
 * KEDA and its HTTP add-on, checked on a cluster where some baseline's forks sleep (docs/sleep.md):
 * the two kinds the worker applies are served, and the add-on's interceptor Service, which the
 * preview routes send to, exists. A cluster with no sleeping baseline gets neither check.
 */

import type { ClusterPort } from '../cluster/ports.ts';
import { kedaInterceptor } from '../cluster/sleep.ts';
import { failed, type Outcome, passed } from './probes.ts';

const install =
  'install KEDA 2.x and its HTTP add-on 0.14 or later in namespace keda (docs/deploy.md, "KEDA and its HTTP add-on")';

/** The definitions the worker's objects need: group version, resource, and the CRD's name. */
const kinds = [
  { apiVersion: 'keda.sh/v1alpha1', resource: 'scaledobjects', definition: 'scaledobjects.keda.sh' },
  {
    apiVersion: 'http.keda.sh/v1beta1',
    resource: 'interceptorroutes',
    definition: 'interceptorroutes.http.keda.sh',
  },
] as const;

/** Discovery (every identity may read it): each kind served, else which CRD is missing. */
export async function kedaCrdsCheck(
  name: string,
  cluster: ClusterPort,
  baselines: string[],
): Promise<Outcome> {
  const served = await Promise.all(kinds.map((k) => cluster.servedResources(k.apiVersion)));
  const evidence = {
    cluster: name,
    sleeping_baselines: baselines,
    served: Object.fromEntries(kinds.map((k, i) => [k.apiVersion, served[i] ? [...served[i]].sort() : null])),
  };
  const missing = kinds.filter((k, i) => !served[i]?.includes(k.resource)).map((k) => k.definition);
  const needs = `which the sleeping baselines ${baselines.join(', ')} need`;
  if (missing.length > 0) {
    const older = missing.includes('interceptorroutes.http.keda.sh')
      ? ' (an add-on before 0.14 serves HTTPScaledObjects only)'
      : '';
    return failed(
      `cluster "${name}" does not serve ${missing.join(' or ')}${older}, ${needs}: ${install}`,
      evidence,
    );
  }
  return passed(
    `cluster "${name}" serves ${kinds.map((k) => k.definition).join(' and ')}, ${needs}`,
    evidence,
  );
}

/** The interceptor's Service (`get services` on that one name in `keda`), with the port the routes send to. */
export async function interceptorCheck(name: string, cluster: ClusterPort): Promise<Outcome> {
  const { namespace, service: serviceName, port } = kedaInterceptor;
  const service = await cluster.getService(namespace, serviceName);
  const ports = service?.spec.ports?.map((p) => p.port) ?? [];
  const evidence = { cluster: name, service: `${namespace}/${serviceName}`, ports: service ? ports : null };
  const where = `Service ${namespace}/${serviceName} on cluster "${name}"`;
  if (!service) return failed(`${where} not found: ${install}`, evidence);
  if (!ports.includes(port)) {
    return failed(`${where} has no port ${port}, where the preview routes send: ${install}`, evidence);
  }
  return passed(`${where} exists with port ${port}`, evidence);
}
