/**
 * An identity and the policy it is held to, evaluated by a real IAM policy simulator
 * (@cloud-copilot/iam-simulate): explicit and implicit denials, wildcards in actions and ARNs, as
 * AWS evaluates an identity-based policy within one account.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { AuthorizationRequest } from './requests.ts';

/** One Allow statement, as SST's `permissions` and infra/settings.ts write them. */
export interface Statement {
  actions: readonly string[];
  resources: readonly string[];
}

/** A function's role as AWS sees one of its calls. */
export interface Identity {
  /** `arn:aws:sts::<account>:assumed-role/<role>/<session>`: what a denial names. */
  principal: string;
  account: string;
  /** Its identity-based policy: every statement allows. */
  statements: readonly Statement[];
}

export interface Authorizer {
  readonly identity: Identity;
  /** The first request the policy does not allow, or null when it allows them all. */
  firstDenied(requests: readonly AuthorizationRequest[]): Promise<AuthorizationRequest | null>;
}

/** The policy document of the statements. */
function policyDocument(statements: readonly Statement[]) {
  return {
    Version: '2012-10-17',
    Statement: statements.map((s) => ({
      Effect: 'Allow',
      Action: [...s.actions],
      Resource: [...s.resources],
    })),
  };
}

/** A request the simulator could not evaluate: an ARN of no resource type of the action, a malformed policy. */
export class SimulationError extends Error {
  override name = 'SimulationError';
}

/**
 * Above this many decisions the cache starts over: a long-running stack names a new queue per
 * preview, and a decision costs well under a millisecond to make again.
 */
const cachedDecisions = 10_000;

/**
 * Evaluates requests against the identity's policy. A decision depends only on the action and the
 * resource, so each is simulated once and kept.
 */
export function policyAuthorizer(identity: Identity): Authorizer {
  const policy = policyDocument(identity.statements);
  const decisions = new Map<string, Promise<boolean>>();
  const allowed = (request: AuthorizationRequest) => {
    const key = `${request.action} ${request.resource}`;
    let decision = decisions.get(key);
    if (!decision) {
      if (decisions.size >= cachedDecisions) decisions.clear();
      decision = simulate(identity, policy, request);
      decisions.set(key, decision);
      // A failed simulation is a bug to see each time, not a decision to keep.
      decision.catch(() => decisions.delete(key));
    }
    return decision;
  };
  return {
    identity,
    async firstDenied(requests) {
      const verdicts = await Promise.all(requests.map(allowed));
      return requests.find((_, index) => !verdicts[index]) ?? null;
    },
  };
}

async function simulate(
  identity: Identity,
  policy: ReturnType<typeof policyDocument>,
  request: AuthorizationRequest,
): Promise<boolean> {
  const result = await runSimulation(
    {
      identityPolicies: [{ name: 'function-policy', policy }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      request: {
        principal: identity.principal,
        action: request.action,
        resource: { resource: request.resource, accountId: accountOf(request.resource) ?? identity.account },
        contextVariables: {},
      },
    },
    {},
  );
  if (result.resultType === 'error') {
    throw new SimulationError(
      `cannot evaluate ${request.action} on ${request.resource}: ${JSON.stringify(result.errors)}`,
    );
  }
  return result.overallResult === 'Allowed';
}

const accountOf = (arn: string) => (arn.startsWith('arn:') ? arn.split(':')[4] || null : null);
