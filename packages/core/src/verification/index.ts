export { isPrivateAddress } from './addresses.ts';
export { fingerprint } from './fingerprint.ts';
export { type Hop, HopReport, hopsOf } from './hop-report.ts';
export { CheckKind, CheckList, type CheckRecord, CheckStatus, CheckView } from './model.ts';
export {
  offPreviewVerdict,
  type ProbeResult,
  type RoutingVerdict,
  routingTarget,
  routingVerdict,
} from './routing.ts';
