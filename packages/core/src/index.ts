/**
 * The domain, as importers see it. The shared kernel (errors, clock, names and ids, paging,
 * validation, duration, images, hashing, log, settings) is flat: every domain and adapter speaks it.
 * Each domain is a namespace named after its folder, whose index.ts names its public surface:
 * `Compositions.create(…)`, `Catalog.apply(…)`. Functions drop the namespace from their name;
 * types, schemas and constants keep descriptive names (`Compositions.CompositionView`), since the
 * same name is used unqualified inside core, where a bare `Record` or `Event` would shadow a global.
 */
export * as Auth from './auth/index.ts';
export * as Builds from './builds/index.ts';
export { contentHash, sha256 } from './canonical.ts';
export * as Catalog from './catalog/index.ts';
export * as Checks from './checks/index.ts';
export { addSeconds, type Clock, systemClock } from './clock.ts';
export * as Cluster from './cluster/index.ts';
export * as Compositions from './compositions/index.ts';
export * as Drafts from './drafts/index.ts';
export { formatDuration, parseDuration } from './duration.ts';
export {
  Dependency,
  DependencyUnavailableError,
  ErrorCode,
  errorCatalog,
  type FieldError,
  outwardCause,
  type ProblemBody,
  ProblemError,
  validationFailed,
} from './errors.ts';
export * as Forge from './forge/index.ts';
export * as Frontends from './frontends/index.ts';
export * as Health from './health/index.ts';
export * as Idempotency from './idempotency/index.ts';
export { componentNamedLike, type ImageParts, readImage } from './images.ts';
export * as Insight from './insight/index.ts';
export * as Installation from './installation/index.ts';
export * as Jobs from './jobs/index.ts';
export { jsonLog, type Log, silentLog } from './log.ts';
export * as Messaging from './messaging/index.ts';
export { ClusterName, CompositionName, Id, IdPrefix, isDnsLabel, newId, ResourceName } from './names.ts';
export * as Operations from './operations/index.ts';
export {
  type Cursors,
  cursors,
  defaultPageSize,
  maxPageSize,
  minCursorKeyLength,
  type Page,
  type PageRequest,
  pageSchema,
} from './paging.ts';
export * as Resources from './resources.ts';
export * as Rollout from './rollout/index.ts';
export { type MetricsSink, ServiceMetric } from './service-metrics.ts';
export {
  LocalStackEnvironment,
  PublicOriginEnvironment,
  parseEnvironment,
  ServerEnvironment,
  SettingsError,
  variablePath,
} from './settings.ts';
export { bodyLimits, bodyProblems, parseFields, parseOrThrow, parseQueryOrThrow } from './validation.ts';
export { VersionView } from './version.ts';
