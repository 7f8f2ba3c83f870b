// The RBAC authorizer over the cluster's own Role, ClusterRole, RoleBinding and ClusterRoleBinding
// objects, as upstream's (plugin/pkg/auth/authorizer/rbac): the rules of every ClusterRoleBinding
// that names the user or one of its groups, then, for a request in a namespace, of every
// RoleBinding there (to a Role of that namespace or to a ClusterRole). The first rule that allows
// the request decides; none is "no opinion", which refuses. A user's rules are gathered once and
// kept until any RBAC object changes, so a request costs a cache read and a scan of its rules.

import type { Api } from '../api/operations.ts';
import { RBAC_GROUP } from '../api/registry.ts';
import type { Store } from '../api/store.ts';
import type { KubeObject } from '../api/types.ts';
import { isPrivileged, type UserInfo } from './identity.ts';
import { type PolicyRule, type RequestAttributes, ruleAllows } from './rules.ts';

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

interface RoleRef {
  kind: string;
  name: string;
}

/** A rule and what granted it, for the reason an allowed review gives. */
interface GrantedRule {
  rule: PolicyRule;
  source: string;
}

interface UserRules {
  cluster: GrantedRule[];
  /** Bindings that name a role that does not exist (upstream reports them in its reason). */
  errors: string[];
  namespaces: Map<string, GrantedRule[]>;
}

export interface Decision {
  allowed: boolean;
  reason: string;
}

const serviceAccountPrefix = 'system:serviceaccount:';

/** Whether a binding's subject is this user (upstream's `appliesToUser`). */
function appliesTo(user: UserInfo, subject: Subject, namespace: string): boolean {
  if (subject.kind === 'User') return subject.name === user.name;
  if (subject.kind === 'Group') return user.groups.includes(subject.name);
  if (subject.kind !== 'ServiceAccount') return false;
  // A RoleBinding's service account without a namespace is of the binding's own namespace.
  const saNamespace = subject.namespace || namespace;
  return saNamespace !== '' && user.name === `${serviceAccountPrefix}${saNamespace}:${subject.name}`;
}

const describeSubject = (s: Subject) =>
  s.kind === 'ServiceAccount' ? `${s.kind} "${s.namespace ?? ''}/${s.name}"` : `${s.kind} "${s.name}"`;

export class RbacAuthorizer {
  private readonly api: Api;
  private readonly cache = new Map<string, UserRules>();

  constructor(api: Api, store: Store) {
    this.api = api;
    store.subscribe((event) => {
      if (event.rt.group === RBAC_GROUP) this.cache.clear();
    });
  }

  authorize(user: UserInfo, request: RequestAttributes): Decision {
    if (isPrivileged(user)) return { allowed: true, reason: '' };
    const rules = this.userRules(user);
    const namespace = request.resourceRequest ? request.namespace : '';
    const found =
      rules.cluster.find((g) => ruleAllows(request, g.rule)) ??
      (namespace
        ? this.namespaceRules(user, rules, namespace).find((g) => ruleAllows(request, g.rule))
        : undefined);
    if (found) return { allowed: true, reason: `RBAC: allowed by ${found.source}` };
    return { allowed: false, reason: rules.errors.length > 0 ? `RBAC: ${rules.errors.join(', ')}` : '' };
  }

  /** Every rule that applies to the user in `namespace` (a SelfSubjectRulesReview's answer). */
  rulesFor(user: UserInfo, namespace: string): PolicyRule[] {
    const rules = this.userRules(user);
    const namespaced = namespace ? this.namespaceRules(user, rules, namespace) : [];
    return [...rules.cluster, ...namespaced].map((g) => g.rule);
  }

  private userRules(user: UserInfo): UserRules {
    const key = `${user.name}\u0000${user.groups.join('\u0000')}`;
    let rules = this.cache.get(key);
    if (!rules) {
      rules = { cluster: [], errors: [], namespaces: new Map() };
      for (const binding of this.objects('clusterrolebindings', undefined)) {
        this.grant(user, binding, '', rules.cluster, rules.errors);
      }
      this.cache.set(key, rules);
    }
    return rules;
  }

  private namespaceRules(user: UserInfo, rules: UserRules, namespace: string): GrantedRule[] {
    let granted = rules.namespaces.get(namespace);
    if (!granted) {
      granted = [];
      for (const binding of this.objects('rolebindings', namespace)) {
        this.grant(user, binding, namespace, granted, rules.errors);
      }
      rules.namespaces.set(namespace, granted);
    }
    return granted;
  }

  /** The rules of a binding's role, when one of its subjects is the user. */
  private grant(
    user: UserInfo,
    binding: KubeObject,
    namespace: string,
    into: GrantedRule[],
    errors: string[],
  ): void {
    const subject = ((binding.subjects ?? []) as Subject[]).find((s) => appliesTo(user, s, namespace));
    const ref = binding.roleRef as RoleRef | undefined;
    if (!subject || !ref) return;
    const role =
      ref.kind === 'Role' && namespace
        ? this.api.tryGet(this.api.rt(RBAC_GROUP, 'roles'), namespace, ref.name)
        : ref.kind === 'ClusterRole'
          ? this.api.tryGet(this.api.rt(RBAC_GROUP, 'clusterroles'), undefined, ref.name)
          : undefined;
    if (!role) {
      errors.push(`${ref.kind.toLowerCase()}.${RBAC_GROUP} "${ref.name}" not found`);
      return;
    }
    const name = namespace ? `${binding.metadata.name}/${namespace}` : binding.metadata.name;
    const source = `${namespace ? 'RoleBinding' : 'ClusterRoleBinding'} "${name}" of ${ref.kind} "${ref.name}" to ${describeSubject(subject)}`;
    for (const rule of (role.rules ?? []) as PolicyRule[]) into.push({ rule, source });
  }

  private objects(resource: string, namespace: string | undefined): readonly KubeObject[] {
    return this.api.list(this.api.rt(RBAC_GROUP, resource), namespace).items;
  }
}
