/**
 * The installation specification (what `POST /v1/installation/check` and `svc installation check
 * --file` take) and the report they answer with. Documented in docs/installation.md.
 */
import * as v from 'valibot';
import { CheckStatus } from '../checks/model.ts';
import { ClusterName, dnsLabel, ResourceName } from '../names.ts';

export const GatewayRef = v.strictObject({
  namespace: dnsLabel(63, 'gateway namespace'),
  name: dnsLabel(63, 'gateway name'),
});
export type GatewayRef = v.InferOutput<typeof GatewayRef>;

/** Bounds that keep one check well inside the API's 29 s limit. */
const maxInstallationTargets = 25;
const maxTargetBaselines = 50;

const InstallationTarget = v.strictObject({
  /** A registered catalog project. */
  project: ResourceName,
  /** Its baselines to check; absent = every baseline of the project. */
  baselines: v.optional(
    v.pipe(
      v.array(ResourceName),
      v.minLength(1, 'list at least one baseline, or leave baselines out to check them all'),
      v.maxLength(maxTargetBaselines, `at most ${maxTargetBaselines} baselines per target`),
    ),
  ),
  /** The Gateway public preview routes would attach to; absent = each baseline's catalog `gateway`. */
  gateway: v.optional(GatewayRef),
});

export const InstallationSpec = v.strictObject({
  /**
   * The clusters to check (each one the stage's), and only the baselines on them; absent = every
   * cluster of the stage.
   */
  clusters: v.optional(
    v.pipe(
      v.array(ClusterName),
      v.minLength(1, 'list at least one cluster, or leave clusters out to check them all'),
      v.maxLength(maxInstallationTargets, `at most ${maxInstallationTargets} clusters`),
    ),
  ),
  /** What to check; absent = every registered baseline with its catalog Gateway. */
  targets: v.optional(
    v.pipe(
      v.array(InstallationTarget),
      v.minLength(1, 'list at least one target, or leave targets out to check every baseline'),
      v.maxLength(maxInstallationTargets, `at most ${maxInstallationTargets} targets`),
    ),
  ),
});
export type InstallationSpec = v.InferOutput<typeof InstallationSpec>;

/** The verdict: any check failed → failed; else any unknown → incomplete; else passed. */
export const InstallationStatus = { Passed: 'passed', Failed: 'failed', Incomplete: 'incomplete' } as const;
export type InstallationStatus = (typeof InstallationStatus)[keyof typeof InstallationStatus];

export const InstallationCheckView = v.object({
  /** `cluster:<name>`, `gateway-api:<name>`, `<kind>:<project>/<baseline>` or `workload:<project>/<baseline>/<component>`. */
  id: v.string(),
  status: v.enum(CheckStatus),
  message: v.string(),
  /** What was read to decide, as JSON; the fields depend on the check (docs/installation.md). */
  evidence: v.record(v.string(), v.unknown()),
});
export type InstallationCheckView = v.InferOutput<typeof InstallationCheckView>;

export const InstallationReport = v.object({
  status: v.enum(InstallationStatus),
  checked_at: v.string(),
  checks: v.array(InstallationCheckView),
});
export type InstallationReport = v.InferOutput<typeof InstallationReport>;

export function verdict(checks: readonly { status: CheckStatus }[]): InstallationStatus {
  if (checks.some((c) => c.status === CheckStatus.Failed)) return InstallationStatus.Failed;
  if (checks.some((c) => c.status === CheckStatus.Unknown)) return InstallationStatus.Incomplete;
  return InstallationStatus.Passed;
}
