export { isPrivateAddress } from './addresses.ts';
export { recordFrontend, recordTest } from './commands.ts';
export { fingerprint } from './fingerprint.ts';
export { type Hop, HopReport, hopsOf } from './hop-report.ts';
export { CheckKind, type CheckRecord, CheckStatus } from './model.ts';
export type { CheckDeps, CheckStore } from './ports.ts';
export { list } from './reads.ts';
export {
  offPreviewVerdict,
  type ProbeResult,
  type RoutingVerdict,
  routingTarget,
  routingVerdict,
} from './routing.ts';
export { CheckList, CheckView, CompositionCheckBody, FrontendCheckBody } from './schema.ts';
