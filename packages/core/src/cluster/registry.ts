/**
 * The clusters a stage may use, by the name baselines give them (the catalog's `cluster`). Each is
 * built once per process by the wiring and kept, so every composition on a cluster shares its
 * client and connections; a name the stage does not know is an answer, not an error.
 */
import { clusterList } from '../names.ts';
import type { ClusterPort } from './ports.ts';

export type ClusterLookup =
  | { known: true; name: string; cluster: ClusterPort }
  | { known: false; name: string | undefined; reason: string };

export interface ClusterRegistry {
  /** Every cluster the stage knows, sorted. */
  readonly names: readonly string[];
  /**
   * The cluster of that name. A composition recorded before clusters were named has none: it
   * lives on the stage's only cluster, and has no answer where there are several.
   */
  lookup(name: string | undefined): ClusterLookup;
}

/** Why a name is not one of the stage's clusters, naming those it knows. */
function unknownClusterReason(name: string | undefined, names: readonly string[]): string {
  return name === undefined
    ? `the composition was made before clusters were named, and this installation has several (${clusterList(names)}): which one holds it is unknown`
    : `cluster "${name}" is not one of this installation's clusters (${clusterList(names)})`;
}

/** The registry over ports built once each (an empty map is a wiring bug, refused at once). */
export function clusterRegistry(clusters: ReadonlyMap<string, ClusterPort>): ClusterRegistry {
  if (clusters.size === 0) throw new Error('a stage has at least one cluster');
  const names = [...clusters.keys()].sort();
  const only = names.length === 1 ? names[0] : undefined;
  return {
    names,
    lookup(name) {
      const wanted = name ?? only;
      const cluster = wanted === undefined ? undefined : clusters.get(wanted);
      if (wanted === undefined || !cluster) {
        return { known: false, name, reason: unknownClusterReason(name, names) };
      }
      return { known: true, name: wanted, cluster };
    },
  };
}
