import { describe, expect, it } from 'vitest';
import { Api } from '../api/operations.ts';
import { RBAC_GROUP, Registry } from '../api/registry.ts';
import { Store } from '../api/store.ts';
import { ensureBootstrapPolicy } from './bootstrap-policy.ts';
import { anonymous, type UserInfo } from './identity.ts';
import { RbacAuthorizer } from './rbac.ts';
import { requestAttributes } from './request-info.ts';
import type { PolicyRule, RequestAttributes } from './rules.ts';

function cluster() {
  const store = new Store();
  const api = new Api(new Registry(), store);
  const authorizer = new RbacAuthorizer(api, store);
  ensureBootstrapPolicy(api);
  for (const name of ['staging', 'payments']) {
    api.create(api.rt('', 'namespaces'), undefined, { metadata: { name } }, { fieldManager: 'test' });
  }
  const create = (resource: string, namespace: string | undefined, object: Record<string, unknown>) =>
    api.create(api.rt(RBAC_GROUP, resource), namespace, object as never, { fieldManager: 'test' });
  return {
    api,
    authorizer,
    role: (name: string, rules: PolicyRule[], namespace?: string) =>
      create(namespace ? 'roles' : 'clusterroles', namespace, { metadata: { name, namespace }, rules }),
    bind(name: string, role: { kind: string; name: string }, subjects: object[], namespace?: string) {
      create(namespace ? 'rolebindings' : 'clusterrolebindings', namespace, {
        metadata: { name, namespace },
        roleRef: { apiGroup: RBAC_GROUP, ...role },
        subjects,
      });
    },
  };
}

const worker: UserInfo = { name: 'worker', groups: ['preview-worker', 'system:authenticated'] };
const group = (name: string) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });

const resource = (
  verb: string,
  res: string,
  more: Partial<RequestAttributes & { resourceRequest: true }> = {},
) =>
  ({
    resourceRequest: true,
    verb,
    group: '',
    resource: res,
    subresource: '',
    namespace: 'staging',
    name: '',
    ...more,
  }) as RequestAttributes;

describe('the RBAC authorizer', () => {
  it('grants a verb only as listed: get, list and watch apart; * grants them all', () => {
    const c = cluster();
    c.role('reader', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }], 'staging');
    c.role('everything', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['*'] }], 'staging');
    c.bind('reader', { kind: 'Role', name: 'reader' }, [group('preview-worker')], 'staging');
    c.bind('everything', { kind: 'Role', name: 'everything' }, [group('preview-worker')], 'staging');
    const may = (request: RequestAttributes) => c.authorizer.authorize(worker, request).allowed;
    expect(may(resource('get', 'deployments', { group: 'apps', name: 'a' }))).toBe(true);
    expect(may(resource('list', 'deployments', { group: 'apps' }))).toBe(false);
    expect(may(resource('watch', 'deployments', { group: 'apps' }))).toBe(false);
    expect(may(resource('get', 'deployments', { group: 'extensions', name: 'a' }))).toBe(false);
    for (const verb of ['get', 'list', 'watch', 'create', 'patch', 'delete', 'deletecollection']) {
      expect(may(resource(verb, 'configmaps')), verb).toBe(true);
    }
    expect(
      c.authorizer.authorize(worker, resource('get', 'deployments', { group: 'apps', name: 'a' })),
    ).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "reader/staging" of Role "reader" to Group "preview-worker"',
    });
  });

  it('matches resourceNames by name only, so a create or a list never matches them', () => {
    const c = cluster();
    c.role(
      'one',
      [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['anchor'], verbs: ['*'] }],
      'staging',
    );
    c.bind('one', { kind: 'Role', name: 'one' }, [group('preview-worker')], 'staging');
    const may = (request: RequestAttributes) => c.authorizer.authorize(worker, request).allowed;
    expect(may(resource('get', 'configmaps', { name: 'anchor' }))).toBe(true);
    expect(may(resource('get', 'configmaps', { name: 'other' }))).toBe(false);
    expect(may(resource('create', 'configmaps'))).toBe(false);
    expect(may(resource('list', 'configmaps'))).toBe(false);
    // A list narrowed to the name by a field selector is a request for that name, as upstream reads it.
    expect(
      may(
        requestAttributes(
          'GET',
          '/api/v1/namespaces/staging/configmaps',
          new URLSearchParams('fieldSelector=metadata.name=anchor'),
        ),
      ),
    ).toBe(true);
  });

  it('tells a subresource from its resource, and */sub matches every resource with it', () => {
    const c = cluster();
    c.role('logs', [{ apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }], 'staging');
    c.role('scales', [{ apiGroups: ['apps'], resources: ['*/scale'], verbs: ['patch'] }], 'staging');
    c.role('pods', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }], 'staging');
    for (const name of ['logs', 'scales', 'pods']) {
      c.bind(name, { kind: 'Role', name }, [group('preview-worker')], 'staging');
    }
    const may = (request: RequestAttributes) => c.authorizer.authorize(worker, request).allowed;
    expect(may(resource('get', 'pods', { name: 'p', subresource: 'log' }))).toBe(true);
    expect(may(resource('get', 'pods', { name: 'p', subresource: 'status' }))).toBe(false);
    expect(may(resource('patch', 'deployments', { group: 'apps', name: 'd', subresource: 'scale' }))).toBe(
      true,
    );
    expect(may(resource('patch', 'replicasets', { group: 'apps', name: 'r', subresource: 'scale' }))).toBe(
      true,
    );
    expect(may(resource('patch', 'deployments', { group: 'apps', name: 'd', subresource: 'status' }))).toBe(
      false,
    );
    expect(may(resource('patch', 'deployments', { group: 'apps', name: 'd' }))).toBe(false);
  });

  it('applies a RoleBinding in its own namespace only, even when it binds a ClusterRole', () => {
    const c = cluster();
    c.role('writer', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['create'] }]);
    c.bind('writer', { kind: 'ClusterRole', name: 'writer' }, [group('preview-worker')], 'staging');
    const may = (request: RequestAttributes) => c.authorizer.authorize(worker, request).allowed;
    expect(may(resource('create', 'deployments', { group: 'apps' }))).toBe(true);
    expect(may(resource('create', 'deployments', { group: 'apps', namespace: 'payments' }))).toBe(false);
    expect(may(resource('create', 'deployments', { group: 'apps', namespace: '' }))).toBe(false);
  });

  it('matches users, groups and service accounts, and nobody else', () => {
    const c = cluster();
    c.role('read', [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }], 'staging');
    c.bind(
      'read',
      { kind: 'Role', name: 'read' },
      [
        { kind: 'User', apiGroup: RBAC_GROUP, name: 'alice' },
        { kind: 'ServiceAccount', name: 'robot' },
      ],
      'staging',
    );
    const may = (user: UserInfo) => c.authorizer.authorize(user, resource('list', 'pods')).allowed;
    expect(may({ name: 'alice', groups: [] })).toBe(true);
    expect(may({ name: 'system:serviceaccount:staging:robot', groups: [] })).toBe(true);
    expect(may({ name: 'system:serviceaccount:other:robot', groups: [] })).toBe(false);
    expect(may({ name: 'bob', groups: ['alice'] })).toBe(false);
  });

  it('answers non-resource paths from ClusterRoleBindings: discovery for the authenticated, health for all', () => {
    const c = cluster();
    const may = (user: UserInfo, path: string, method = 'GET') =>
      c.authorizer.authorize(user, requestAttributes(method, path, new URLSearchParams())).allowed;
    for (const path of [
      '/version',
      '/api',
      '/api/v1',
      '/apis',
      '/apis/apps/v1',
      '/openapi/v3',
      '/openapi/v3/apis/apps/v1',
      '/healthz',
    ]) {
      expect(may(worker, path), path).toBe(true);
    }
    expect(may(worker, '/apis', 'POST')).toBe(false);
    expect(may(worker, '/_faults')).toBe(false);
    expect(may(anonymous, '/healthz')).toBe(true);
    expect(may(anonymous, '/version')).toBe(true);
    expect(may(anonymous, '/apis')).toBe(false);
    expect(may(worker, '/api/v1/namespaces/staging/pods')).toBe(false);
  });

  it('lets system:masters do anything, and the reviews of every identity', () => {
    const c = cluster();
    const admin = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
    expect(
      c.authorizer.authorize(admin, resource('delete', 'namespaces', { name: 'x', namespace: 'x' })).allowed,
    ).toBe(true);
    const review = requestAttributes(
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      new URLSearchParams(),
    );
    expect(c.authorizer.authorize(worker, review).allowed).toBe(true);
    expect(c.authorizer.authorize(anonymous, review).allowed).toBe(false);
  });

  it('sees a change of any RBAC object at once, and says which role a binding misses', () => {
    const c = cluster();
    c.bind('late', { kind: 'Role', name: 'late' }, [group('preview-worker')], 'staging');
    const list = resource('list', 'services');
    expect(c.authorizer.authorize(worker, list)).toEqual({
      allowed: false,
      reason: 'RBAC: role.rbac.authorization.k8s.io "late" not found',
    });
    c.role('late', [{ apiGroups: [''], resources: ['services'], verbs: ['list'] }], 'staging');
    expect(c.authorizer.authorize(worker, list).allowed).toBe(true);
    c.api.delete(c.api.rt(RBAC_GROUP, 'rolebindings'), 'staging', 'late', {});
    expect(c.authorizer.authorize(worker, list).allowed).toBe(false);
  });
});

describe('a request in RBAC terms', () => {
  const of = (method: string, path: string, query = '') =>
    requestAttributes(method, path, new URLSearchParams(query));

  it('reads the verb from the method and the path, as the API server does', () => {
    const deployments = '/apis/apps/v1/namespaces/staging/deployments';
    expect(of('GET', deployments)).toMatchObject({
      verb: 'list',
      group: 'apps',
      resource: 'deployments',
      namespace: 'staging',
      name: '',
    });
    expect(of('GET', deployments, 'watch=1')).toMatchObject({ verb: 'watch' });
    expect(of('GET', '/apis/apps/v1/watch/namespaces/staging/deployments')).toMatchObject({
      verb: 'watch',
      namespace: 'staging',
    });
    expect(of('GET', `${deployments}/a`)).toMatchObject({ verb: 'get', name: 'a' });
    expect(of('POST', deployments, 'dryRun=All')).toMatchObject({ verb: 'create', name: '' });
    expect(of('PATCH', `${deployments}/a`, 'dryRun=All')).toMatchObject({ verb: 'patch', name: 'a' });
    expect(of('PUT', `${deployments}/a/status`)).toMatchObject({ verb: 'update', subresource: 'status' });
    expect(of('DELETE', `${deployments}/a`)).toMatchObject({ verb: 'delete', name: 'a' });
    expect(of('DELETE', deployments)).toMatchObject({ verb: 'deletecollection' });
    expect(of('GET', '/api/v1/namespaces/staging/pods/p/log')).toMatchObject({
      verb: 'get',
      resource: 'pods',
      subresource: 'log',
    });
    expect(of('GET', '/api/v1/pods')).toMatchObject({ verb: 'list', namespace: '' });
    expect(of('GET', '/api/v1/namespaces/staging')).toMatchObject({
      verb: 'get',
      resource: 'namespaces',
      name: 'staging',
      namespace: 'staging',
    });
    expect(of('GET', '/apis/apps/v1')).toEqual({
      resourceRequest: false,
      verb: 'get',
      path: '/apis/apps/v1',
    });
    expect(of('POST', '/_faults')).toEqual({ resourceRequest: false, verb: 'post', path: '/_faults' });
  });
});
