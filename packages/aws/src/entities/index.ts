/**
 * The table's item types, one module each (docs/data-model.md has a row for every one): its
 * `item_type`, its key builders, and, for what is written whole and read back, `toItem` and
 * `fromItem` (through the item's valibot schema). Stores write and read items only through these.
 */
export * as AccessToken from './access-token.ts';
export * as AuditEvent from './audit-event.ts';
export * as AuthorizationCode from './authorization-code.ts';
export * as Build from './build.ts';
export * as CatalogBaseline from './catalog-baseline.ts';
export * as CatalogComponent from './catalog-component.ts';
export * as CatalogVersion from './catalog-version.ts';
export * as Check from './check.ts';
export * as Composition from './composition.ts';
export * as Draft from './draft.ts';
export * as Event from './event.ts';
export * as ForgeChange from './forge-change.ts';
export * as ForgeDelivery from './forge-delivery.ts';
export * as ForgeHealth from './forge-health.ts';
export * as ForgeRateBudget from './forge-rate-budget.ts';
export * as ForgeReconciliation from './forge-reconciliation.ts';
export * as ForgeSuspension from './forge-suspension.ts';
export * as FrontendBinding from './frontend-binding.ts';
export * as IdempotencyRecord from './idempotency-record.ts';
export * as NamespaceClaim from './namespace-claim.ts';
export * as OidcSubject from './oidc-subject.ts';
export * as Operation from './operation.ts';
export * as PendingSignIn from './pending-sign-in.ts';
export * as Preview from './preview.ts';
export * as PreviewPointer from './preview-pointer.ts';
export * as PreviewPolicy from './preview-policy.ts';
export * as Project from './project.ts';
export * as ProjectQuota from './project-quota.ts';
export * as ProviderSignIn from './provider-sign-in.ts';
export * as RateWindow from './rate-window.ts';
export * as RefreshToken from './refresh-token.ts';
export * as RepositoryClaim from './repository-claim.ts';
export * as Session from './session.ts';
export * as SignInGrant from './sign-in-grant.ts';
export * as SourceRef from './source-ref.ts';
export * as Token from './token.ts';
export * as TokenName from './token-name.ts';
export * as User from './user.ts';
