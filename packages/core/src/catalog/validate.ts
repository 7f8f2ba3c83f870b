import { topicGranted } from '../messaging/ports.ts';
import { clusterList } from '../names.ts';
import { parseFields } from '../validation.ts';
import { type ClusterLimits, clusterScopeProblems } from './clusters.ts';
import { type NamespacePolicy, namespaceProblems } from './namespaces.ts';
import { CatalogManifest } from './schema.ts';

export interface CatalogProblem {
  path: string;
  code: string;
  message: string;
}

const ProblemCode = {
  InvalidShape: 'invalid_shape',
  DuplicateName: 'duplicate_name',
  UnknownComponent: 'unknown_component',
  UnknownBaseline: 'unknown_baseline',
  DependencyCycle: 'dependency_cycle',
  MissingEntryComponent: 'missing_entry_component',
  MissingDependency: 'missing_dependency',
  DuplicateService: 'duplicate_service',
  TopicNotIsolated: 'topic_not_isolated',
  TopicNotGranted: 'topic_not_granted',
  UnknownCluster: 'unknown_cluster',
} as const;

/** What the installation allows a manifest to name. */
export interface ManifestLimits extends ClusterLimits {
  /** The stage's `messageTopics`: the topics the worker may subscribe isolated queues to. */
  messageTopics: readonly string[];
  /** Where baselines (and so previews) may be: the stage's `previewNamespaces`. */
  namespaces: NamespacePolicy;
  /** The clusters the stage may use (its `CLUSTERS`): a baseline names one of them. */
  clusters: readonly string[];
}

export type ValidationResult =
  | { valid: true; manifest: CatalogManifest }
  | { valid: false; problems: CatalogProblem[] };

type Project = CatalogManifest['projects'][number];
type Component = Project['components'][number];
type Baseline = Project['baselines'][number];

/** Checks shape and every cross-reference; lists every problem, not just the first. */
export function validateManifest(input: unknown, limits: ManifestLimits): ValidationResult {
  const parsed = parseFields(CatalogManifest, input);
  if (!parsed.success) {
    return {
      valid: false,
      problems: parsed.errors.map((e) => ({ ...e, code: ProblemCode.InvalidShape })),
    };
  }
  const manifest = parsed.output;
  const problems: CatalogProblem[] = [];
  duplicates(
    manifest.projects.map((p) => p.name),
    (i) => `/projects/${i}/name`,
    'project',
    problems,
  );
  manifest.projects.forEach((project, p) => {
    problems.push(...projectProblems(project, `/projects/${p}`));
    project.baselines.forEach((baseline, b) => {
      const at = `/projects/${p}/baselines/${b}`;
      problems.push(...grantProblems(baseline, limits, at));
      problems.push(...clusterScopeProblems(project.name, baseline, limits, at));
    });
  });
  problems.push(...namespaceProblems(manifest, limits.namespaces));
  return problems.length ? { valid: false, problems } : { valid: true, manifest };
}

function projectProblems(project: Project, base: string): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  const components = new Map(project.components.map((c) => [c.name, c]));
  duplicates(
    project.components.map((c) => c.name),
    (i) => `${base}/components/${i}/name`,
    'component',
    problems,
  );
  duplicates(
    project.baselines.map((b) => b.name),
    (i) => `${base}/baselines/${i}/name`,
    'baseline',
    problems,
  );
  const services = project.components.map((c) => c.service.name);
  services.forEach((name, i) => {
    if (services.indexOf(name) !== i) {
      problems.push({
        path: `${base}/components/${i}/service/name`,
        code: ProblemCode.DuplicateService,
        message: `service "${name}" is already used by component "${project.components[services.indexOf(name)]?.name}"`,
      });
    }
  });
  if (!project.baselines.some((b) => b.name === project.default_baseline)) {
    problems.push({
      path: `${base}/default_baseline`,
      code: ProblemCode.UnknownBaseline,
      message: `default_baseline "${project.default_baseline}" is not one of the project's baselines`,
    });
  }
  problems.push(...dependencyProblems(project, components, base));
  project.baselines.forEach((baseline, b) => {
    problems.push(...baselineProblems(project.name, components, baseline, `${base}/baselines/${b}`));
  });
  return problems;
}

function dependencyProblems(
  project: Project,
  components: ReadonlyMap<string, Component>,
  base: string,
): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  project.components.forEach((component, c) => {
    component.dependencies.forEach((dependency, d) => {
      if (!components.has(dependency)) {
        problems.push({
          path: `${base}/components/${c}/dependencies/${d}`,
          code: ProblemCode.UnknownComponent,
          message: `dependency "${dependency}" is not a component of project "${project.name}"`,
        });
      }
    });
  });
  for (const cycle of dependencyCycles(project.components)) {
    const index = project.components.findIndex((c) => c.name === cycle[0]);
    problems.push({
      path: `${base}/components/${index}/dependencies`,
      code: ProblemCode.DependencyCycle,
      message: `dependency cycle: ${cycle.join(' → ')}`,
    });
  }
  return problems;
}

function baselineProblems(
  projectName: string,
  components: ReadonlyMap<string, Component>,
  baseline: Baseline,
  at: string,
): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  for (const name of Object.keys(baseline.components)) {
    if (!components.has(name)) {
      problems.push({
        path: `${at}/components/${name}`,
        code: ProblemCode.UnknownComponent,
        message: `component "${name}" is not a component of project "${projectName}"`,
      });
    }
  }
  if (!(baseline.entry_component in baseline.components)) {
    problems.push({
      path: `${at}/entry_component`,
      code: ProblemCode.MissingEntryComponent,
      message: `entry component "${baseline.entry_component}" is not among the baseline's components`,
    });
  }
  for (const name of Object.keys(baseline.components)) {
    // Isolation relies on the baseline's own subscription excluding routed messages, which the
    // operator sets up only for the topics listed in the baseline's messaging.
    for (const subscription of components.get(name)?.message_subscriptions ?? []) {
      if (baseline.messaging && !baseline.messaging.topics.includes(subscription.topic)) {
        problems.push({
          path: `${at}/messaging/topics`,
          code: ProblemCode.TopicNotIsolated,
          message: `component "${name}" subscribes to topic "${subscription.topic}", which baseline "${baseline.name}" does not list in messaging.topics`,
        });
      }
    }
    for (const dependency of components.get(name)?.dependencies ?? []) {
      if (components.has(dependency) && !(dependency in baseline.components)) {
        problems.push({
          path: `${at}/components`,
          code: ProblemCode.MissingDependency,
          message: `component "${name}" depends on "${dependency}", which baseline "${baseline.name}" does not run`,
        });
      }
    }
  }
  return problems;
}

/** What the installation does not grant a baseline: a cluster it does not know, topics it does not grant. */
function grantProblems(baseline: Baseline, limits: ManifestLimits, at: string): CatalogProblem[] {
  const cluster: CatalogProblem[] = limits.clusters.includes(baseline.cluster)
    ? []
    : [
        {
          path: `${at}/cluster`,
          code: ProblemCode.UnknownCluster,
          message: `cluster "${baseline.cluster}" is not one of this installation's clusters (${clusterList(limits.clusters)}): name one of them, or add it to the stage's clusters and deploy first`,
        },
      ];
  return [...cluster, ...topicProblems(baseline, limits, at)];
}

/**
 * A baseline topic the stage does not grant would fail every isolated create (the worker may not
 * subscribe to it) and leave its destroy unable to unsubscribe.
 */
function topicProblems(baseline: Baseline, limits: ManifestLimits, at: string): CatalogProblem[] {
  return (baseline.messaging?.topics ?? []).flatMap((topic, t) =>
    topicGranted(topic, limits.messageTopics)
      ? []
      : [
          {
            path: `${at}/messaging/topics/${t}`,
            code: ProblemCode.TopicNotGranted,
            message: `topic "${topic}" is not one the installation grants (${limits.messageTopics.length ? limits.messageTopics.join(', ') : 'none'}): add it to the stage's messageTopics and deploy first`,
          },
        ],
  );
}

function duplicates(
  names: string[],
  path: (i: number) => string,
  what: string,
  problems: CatalogProblem[],
): void {
  names.forEach((name, i) => {
    if (names.indexOf(name) !== i) {
      problems.push({
        path: path(i),
        code: ProblemCode.DuplicateName,
        message: `${what} "${name}" is declared more than once`,
      });
    }
  });
}

/** Each elementary cycle once, as the path that closes it (`a → b → a`). */
function dependencyCycles(
  components: readonly { name: string; dependencies: readonly string[] }[],
): string[][] {
  const graph = new Map(components.map((c) => [c.name, c.dependencies]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (name: string): void => {
    state.set(name, 'visiting');
    stack.push(name);
    for (const next of graph.get(name) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'visiting') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(name, 'done');
  };
  for (const name of graph.keys()) if (!state.has(name)) visit(name);
  return cycles;
}
