/**
 * Who may do what. Roles are granted per project (or `*`, every project); a `publisher` grant is
 * CI's: one project (and optionally one repository) and only the publishing permissions. Every
 * route names one permission; `decide` answers for an identity, a permission and the object's
 * project, and says whether a refusal may admit that the object exists.
 */
import * as v from 'valibot';
import { ErrorCode, ProblemError } from '../errors.ts';

export const GrantRole = {
  Viewer: 'viewer',
  Developer: 'developer',
  Maintainer: 'maintainer',
  Admin: 'admin',
  /** CI: publishes builds and posts frontend checks for one project (and repository), nothing else. */
  Publisher: 'publisher',
} as const;
export type GrantRole = (typeof GrantRole)[keyof typeof GrantRole];

/** The ordered roles; `publisher` stands outside the order. */
export type RankedRole = Exclude<GrantRole, typeof GrantRole.Publisher>;
const rank: Record<RankedRole, number> = { viewer: 1, developer: 2, maintainer: 3, admin: 4 };

export const anyProject = '*';

export const Grant = v.pipe(
  v.strictObject({
    role: v.enum(GrantRole),
    /** A project name, or `*` for every project (and the installation itself). */
    project: v.pipe(v.string(), v.regex(/^(\*|[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)$/, 'a project name or *')),
    /** Publisher grants only: the one repository (`owner/name`) it may publish for; null for any. */
    repository: v.optional(
      v.nullable(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/))),
      null,
    ),
    /**
     * Publisher grants only: the components it may publish builds for; absent for every component
     * of the project (a grant for `acme/service-b` should name `service-b`, or it can publish any).
     */
    components: v.optional(
      v.pipe(
        v.array(v.pipe(v.string(), v.regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'a component name'))),
        v.minLength(1),
        v.maxLength(50),
      ),
    ),
  }),
  v.forward(
    v.check(
      (grant) => grant.role === GrantRole.Publisher || grant.components === undefined,
      'components is only for publisher grants',
    ),
    ['components'],
  ),
);
export type Grant = v.InferOutput<typeof Grant>;

/**
 * What a route needs. `project` permissions are checked against the object's project;
 * `installation` permissions need a grant on `*`. `publisher: true` lets a matching publisher
 * grant through as well.
 */
const permissions = {
  'composition:read': { scope: 'project', role: GrantRole.Viewer, publisher: false },
  'composition:write': { scope: 'project', role: GrantRole.Developer, publisher: false },
  'catalog:read': { scope: 'project', role: GrantRole.Viewer, publisher: false },
  'catalog:apply': { scope: 'project', role: GrantRole.Maintainer, publisher: false },
  'draft:write': { scope: 'project', role: GrantRole.Developer, publisher: false },
  'build:read': { scope: 'project', role: GrantRole.Viewer, publisher: false },
  'build:publish': { scope: 'project', role: GrantRole.Maintainer, publisher: true },
  'frontend:read': { scope: 'project', role: GrantRole.Viewer, publisher: false },
  'frontend:bind': { scope: 'project', role: GrantRole.Developer, publisher: false },
  'frontend:publish': { scope: 'project', role: GrantRole.Maintainer, publisher: true },
  'frontend:check': { scope: 'project', role: GrantRole.Developer, publisher: true },
  'verification:record': { scope: 'project', role: GrantRole.Developer, publisher: true },
  'policy:read': { scope: 'project', role: GrantRole.Viewer, publisher: false },
  'policy:write': { scope: 'project', role: GrantRole.Maintainer, publisher: false },
  'preview:read': { scope: 'project', role: GrantRole.Viewer, publisher: false },
  'preview:control': { scope: 'project', role: GrantRole.Developer, publisher: false },
  'forge:read': { scope: 'installation', role: GrantRole.Viewer, publisher: false },
  'token:manage': { scope: 'installation', role: GrantRole.Admin, publisher: false },
  'user:manage': { scope: 'installation', role: GrantRole.Admin, publisher: false },
  'installation:check': { scope: 'installation', role: GrantRole.Admin, publisher: false },
  'dead_letters:replay': { scope: 'installation', role: GrantRole.Admin, publisher: false },
  /** Destroys every live composition of the stage or of one of its clusters. */
  'installation:drain': { scope: 'installation', role: GrantRole.Admin, publisher: false },
  'audit:read': { scope: 'installation', role: GrantRole.Admin, publisher: false },
  /** Any authenticated caller: its own identity, its own credentials. */
  self: { scope: 'none', role: null, publisher: false },
} as const satisfies Record<
  string,
  { scope: 'project' | 'installation' | 'none'; role: RankedRole | null; publisher: boolean }
>;

export type Permission = keyof typeof permissions;
export const Permission = Object.fromEntries(Object.keys(permissions).map((p) => [p, p])) as {
  readonly [P in Permission]: P;
};
export const permissionNames = Object.keys(permissions) as Permission[];

export function permissionRule(permission: Permission) {
  return permissions[permission];
}

export const Decision = {
  Allowed: 'allowed',
  /** 403: the caller may see the object but not do this. */
  Forbidden: 'forbidden',
  /** 404: the caller may not even know the object exists. */
  Hidden: 'hidden',
} as const;
export type Decision = (typeof Decision)[keyof typeof Decision];

export interface Target {
  project: string | null;
  /** The repository (`owner/name`) a publication is for; only publisher grants look at it. */
  repository?: string | null;
  /** The component a build is published for; only publisher grants naming components look at it. */
  component?: string;
}

const covers = (grant: Grant, project: string) => grant.project === anyProject || grant.project === project;

/** The highest ranked role the grants give on `project` (`*` grants included); null for none. */
export function roleOn(grants: readonly Grant[], project: string): RankedRole | null {
  let best: RankedRole | null = null;
  for (const grant of grants) {
    if (grant.role === GrantRole.Publisher || !covers(grant, project)) continue;
    if (best === null || rank[grant.role] > rank[best]) best = grant.role;
  }
  return best;
}

function atLeast(role: RankedRole | null, minimum: RankedRole): boolean {
  return role !== null && rank[role] >= rank[minimum];
}

function publisherMatches(grants: readonly Grant[], target: Target): boolean {
  return grants.some(
    (grant) =>
      grant.role === GrantRole.Publisher &&
      target.project !== null &&
      covers(grant, target.project) &&
      (grant.repository === null ||
        (target.repository !== undefined &&
          target.repository !== null &&
          grant.repository.toLowerCase() === target.repository.toLowerCase())) &&
      (grant.components === undefined ||
        (target.component !== undefined && grant.components.includes(target.component))),
  );
}

/**
 * The answer for one request. A project-scoped refusal is `hidden` when no grant touches the
 * project at all (its objects must not leak), else `forbidden`.
 */
export function decide(grants: readonly Grant[], permission: Permission, target: Target): Decision {
  const rule = permissions[permission];
  if (rule.scope === 'none') return Decision.Allowed;
  if (rule.scope === 'installation') {
    return atLeast(roleOn(grants, anyProject), rule.role) ? Decision.Allowed : Decision.Forbidden;
  }
  if (target.project === null) {
    return atLeast(roleOn(grants, anyProject), rule.role) ? Decision.Allowed : Decision.Forbidden;
  }
  const role = roleOn(grants, target.project);
  if (atLeast(role, rule.role)) return Decision.Allowed;
  if (rule.publisher && publisherMatches(grants, target)) return Decision.Allowed;
  const touches = role !== null || grants.some((g) => covers(g, target.project as string));
  return touches ? Decision.Forbidden : Decision.Hidden;
}

/** The projects whose objects a list may show for `permission`: every project, or these. */
export function readableProjects(
  grants: readonly Grant[],
  permission: Permission,
): typeof anyProject | ReadonlySet<string> {
  const rule = permissions[permission];
  if (rule.scope !== 'project') return anyProject;
  if (atLeast(roleOn(grants, anyProject), rule.role)) return anyProject;
  const projects = new Set<string>();
  for (const grant of grants) {
    if (grant.project === anyProject) continue;
    const allowed =
      grant.role === GrantRole.Publisher ? rule.publisher : atLeast(roleOn(grants, grant.project), rule.role);
    if (allowed) projects.add(grant.project);
  }
  return projects;
}

/**
 * Refuses a request the grants do not allow: 403 `forbidden`, or, when the caller may not know the
 * object exists, the same 404 `not_found` an absent object answers (`object` names it, e.g.
 * `composition "c-…"`).
 */
export function authorize(
  caller: { readonly grants: readonly Grant[] },
  permission: Permission,
  target: Target & { object?: string },
): void {
  const decision = decide(caller.grants, permission, target);
  if (decision === Decision.Allowed) return;
  if (decision === Decision.Hidden) {
    throw new ProblemError(ErrorCode.NotFound, `${target.object ?? `project "${target.project}"`} not found`);
  }
  throw new ProblemError(
    ErrorCode.Forbidden,
    `This needs the ${permission} permission${target.project ? ` on project "${target.project}"` : ''}.`,
  );
}
