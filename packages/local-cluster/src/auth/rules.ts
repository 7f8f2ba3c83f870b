// One request in RBAC's terms and whether a PolicyRule allows it, as upstream Kubernetes decides:
// `RuleAllows` of plugin/pkg/auth/authorizer/rbac/rbac.go over the matchers of
// pkg/apis/rbac/v1/evaluation_helpers.go.

/** What the authorizer is asked (upstream's `authorizer.Attributes`). */
export type RequestAttributes =
  | {
      resourceRequest: true;
      verb: string;
      group: string;
      resource: string;
      /** '' when none. */
      subresource: string;
      /** '' for a cluster-scoped request or a request across all namespaces. */
      namespace: string;
      /** '' when the request names no object (list, create). */
      name: string;
    }
  | { resourceRequest: false; verb: string; path: string };

/** An rbac.authorization.k8s.io/v1 PolicyRule (absent lists are empty). */
export interface PolicyRule {
  verbs?: readonly string[];
  apiGroups?: readonly string[];
  resources?: readonly string[];
  resourceNames?: readonly string[];
  nonResourceURLs?: readonly string[];
}

const all = '*';

const verbMatches = (rule: PolicyRule, verb: string) =>
  (rule.verbs ?? []).some((v) => v === all || v === verb);

const apiGroupMatches = (rule: PolicyRule, group: string) =>
  (rule.apiGroups ?? []).some((g) => g === all || g === group);

/** `pods/log` matches `pods/log`, `*` and `*\/log`; `pods` alone never matches a subresource. */
function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  return (rule.resources ?? []).some(
    (r) =>
      r === all ||
      r === combined ||
      (subresource !== '' &&
        r.length === subresource.length + 2 &&
        r.startsWith('*/') &&
        r.endsWith(subresource)),
  );
}

/** No names: every object. Names: only those, so a request naming none (create, list) never matches. */
const resourceNameMatches = (rule: PolicyRule, name: string) =>
  (rule.resourceNames ?? []).length === 0 || (rule.resourceNames ?? []).includes(name);

/** `*` matches every path, `/apis/*` every path under `/apis/`, anything else itself only. */
const nonResourceURLMatches = (rule: PolicyRule, path: string) =>
  (rule.nonResourceURLs ?? []).some(
    (u) => u === all || u === path || (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))),
  );

export function ruleAllows(request: RequestAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, request.verb)) return false;
  if (!request.resourceRequest) return nonResourceURLMatches(rule, request.path);
  const combined = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  return (
    apiGroupMatches(rule, request.group) &&
    resourceMatches(rule, combined, request.subresource) &&
    resourceNameMatches(rule, request.name)
  );
}
