import { describe, expect, it } from 'vitest';
import {
  decide,
  type Grant,
  GrantRole,
  Permission,
  permissionNames,
  permissionRule,
  readableProjects,
  roleOn,
} from './access.ts';

const grant = (role: Grant['role'], project: string, repository: string | null = null): Grant => ({
  role,
  project,
  repository,
});

describe('roleOn', () => {
  it('takes the highest role of the grants covering the project, * included', () => {
    expect(roleOn([grant('viewer', 'a'), grant('maintainer', '*')], 'a')).toBe('maintainer');
    expect(roleOn([grant('developer', 'a')], 'b')).toBeNull();
    expect(roleOn([grant('publisher', 'a')], 'a')).toBeNull();
  });
});

describe('decide', () => {
  const developerOfA = [grant('developer', 'a')];

  it('lets a developer write compositions of their project only, hiding other projects', () => {
    expect(decide(developerOfA, Permission['composition:write'], { project: 'a' })).toBe('allowed');
    expect(decide(developerOfA, Permission['composition:read'], { project: 'b' })).toBe('hidden');
    expect(decide(developerOfA, Permission['composition:write'], { project: 'b' })).toBe('hidden');
  });

  it('forbids (not hides) what a caller who can see the project may not do', () => {
    expect(decide(developerOfA, Permission['catalog:apply'], { project: 'a' })).toBe('forbidden');
    expect(decide([grant('viewer', 'a')], Permission['composition:write'], { project: 'a' })).toBe(
      'forbidden',
    );
  });

  it('lets a publisher publish for its repository only, and read nothing', () => {
    const ci = [grant('publisher', 'a', 'org/x')];
    expect(decide(ci, Permission['build:publish'], { project: 'a', repository: 'org/x' })).toBe('allowed');
    expect(decide(ci, Permission['build:publish'], { project: 'a', repository: 'ORG/X' })).toBe('allowed');
    expect(decide(ci, Permission['build:publish'], { project: 'a', repository: 'org/y' })).toBe('forbidden');
    expect(decide(ci, Permission['build:publish'], { project: 'b', repository: 'org/x' })).toBe('hidden');
    expect(decide(ci, Permission['composition:read'], { project: 'a' })).toBe('forbidden');
    expect(decide(ci, Permission['frontend:check'], { project: 'a', repository: null })).toBe('forbidden');
    expect(
      decide([grant('publisher', 'a')], Permission['frontend:check'], { project: 'a', repository: null }),
    ).toBe('allowed');
  });

  it('lets a publisher grant through exactly the project permissions whose rule admits publishers', () => {
    const ci = [grant(GrantRole.Publisher, 'a')];
    for (const permission of permissionNames) {
      const rule = permissionRule(permission);
      if (rule.scope !== 'project') continue;
      expect(decide(ci, permission, { project: 'a', repository: 'org/x' })).toBe(
        rule.publisher ? 'allowed' : 'forbidden',
      );
    }
  });

  it('keeps installation permissions to grants on *', () => {
    expect(decide([grant('admin', 'a')], Permission['token:manage'], { project: null })).toBe('forbidden');
    expect(decide([grant('admin', '*')], Permission['token:manage'], { project: null })).toBe('allowed');
    expect(decide([grant('viewer', '*')], Permission['forge:read'], { project: null })).toBe('allowed');
    expect(decide([], Permission.self, { project: null })).toBe('allowed');
  });

  it('orders the roles viewer < developer < maintainer < admin', () => {
    const needs = (role: Grant['role']) =>
      permissionNames.filter((p) => decide([grant(role, 'a')], p, { project: 'a' }) === 'allowed');
    const viewer = needs('viewer');
    const developer = needs('developer');
    const maintainer = needs('maintainer');
    const admin = needs('admin');
    for (const [lower, higher] of [
      [viewer, developer],
      [developer, maintainer],
      [maintainer, admin],
    ] as const) {
      expect(lower.every((p) => higher.includes(p))).toBe(true);
    }
    expect(developer.length).toBeGreaterThan(viewer.length);
    expect(maintainer.length).toBeGreaterThan(developer.length);
  });
});

describe('readableProjects', () => {
  it('is * for grants on *, else the projects granted', () => {
    expect(readableProjects([grant('viewer', '*')], Permission['composition:read'])).toBe('*');
    expect([
      ...(readableProjects(
        [grant('viewer', 'a'), grant('developer', 'b')],
        'composition:read',
      ) as Set<string>),
    ]).toEqual(['a', 'b']);
    expect([...(readableProjects([grant('publisher', 'a')], 'composition:read') as Set<string>)]).toEqual([]);
    expect([...(readableProjects([grant('publisher', 'a')], 'build:publish') as Set<string>)]).toEqual(['a']);
  });
});

describe('publisher grants naming components', () => {
  const forServiceB: Grant[] = [
    { ...grant('publisher', 'demo', 'demo-org/service-b'), components: ['service-b'] },
  ];
  const publish = (component: string) =>
    decide(forServiceB, Permission['build:publish'], {
      project: 'demo',
      repository: 'demo-org/service-b',
      component,
    });

  it('publish only for the components they name', () => {
    expect(publish('service-b')).toBe('allowed');
    expect(publish('service-a')).toBe('forbidden');
  });

  it('are the only grants that may name components', async () => {
    const v = await import('valibot');
    const { Grant: schema } = await import('./access.ts');
    expect(v.safeParse(schema, { role: 'developer', project: 'demo', components: ['a'] }).success).toBe(
      false,
    );
    expect(v.safeParse(schema, { role: 'publisher', project: 'demo', components: ['a'] }).success).toBe(true);
  });
});
