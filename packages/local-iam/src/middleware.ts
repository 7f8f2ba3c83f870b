/**
 * The SDK middleware that holds a client to its identity's policy: before a call leaves, every
 * request AWS would evaluate for it is simulated, and a call AWS would deny fails here as AWS's
 * answer does — the service's own error name, status and wording — so the caller's handling of a
 * denial runs as it would on AWS.
 */
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { AuthorizationErrorException } from '@aws-sdk/client-sns';
import { SQSServiceException } from '@aws-sdk/client-sqs';
import type { MiddlewareStack } from '@smithy/types';
import type { Authorizer } from './policy.ts';
import { type ArnScope, type AuthorizationRequest, authorizationRequests, Service } from './requests.ts';

/** The SDK's service ids (the smithy context's `service`), by service prefix. */
const services: Record<string, Service> = {
  DynamoDB_20120810: Service.DynamoDB,
  AmazonSQS: Service.Sqs,
  AmazonSimpleNotificationService: Service.Sns,
};

interface SmithyContext {
  service?: string;
  operation?: string;
}

/** Where each service's resources are, when a call's input does not say (a table name, a queue name). */
type ArnScopes = Record<Service, ArnScope>;

/** An SDK client of any service (its middleware stack is all this needs). */
export interface PolicyHeldClient {
  // biome-ignore lint/suspicious/noExplicitAny: each client's stack is typed with its own inputs and outputs.
  middlewareStack: MiddlewareStack<any, any>;
}

/**
 * Holds the client to the policy `authorizer()` answers at the time of each call (a stage
 * redeployed with other grants changes it).
 */
export function enforcePolicy(
  client: PolicyHeldClient,
  authorizer: () => Authorizer,
  scopes: ArnScopes,
): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const smithy = (context as { __smithy_context?: SmithyContext }).__smithy_context ?? {};
      const service = services[smithy.service ?? ''];
      if (!service || !smithy.operation) {
        throw new Error(`local IAM: ${String(context.commandName)} is of no service it knows`);
      }
      const requests = await authorizationRequests(
        { service, operation: smithy.operation, input: args.input },
        scopes[service],
      );
      const current = authorizer();
      const denied = await current.firstDenied(requests);
      if (denied) throw accessDenied(service, current.identity.principal, denied);
      return next(args);
    },
    // Innermost of the initialize step: inside the clients' own classification of failures, as a
    // denial from AWS would reach them, and before any retry or signing.
    { step: 'initialize', priority: 'low', name: 'localIamPolicy', override: true },
  );
}

/** AWS's wording; SNS writes the action `SNS:Subscribe`, SQS in lower case. */
function actionAsWritten(service: Service, action: string): string {
  if (service === Service.Sns) return action.replace(/^sns:/, 'SNS:');
  if (service === Service.Sqs) return action.toLowerCase();
  return action;
}

/** The error each service answers a call no identity-based policy allows. */
function accessDenied(service: Service, principal: string, denied: AuthorizationRequest): Error {
  const action = actionAsWritten(service, denied.action);
  const message = `User: ${principal} is not authorized to perform: ${action} on resource: ${denied.resource} because no identity-based policy allows the ${action} action`;
  if (service === Service.Sns) {
    return new AuthorizationErrorException({ message, $metadata: { httpStatusCode: 403 } });
  }
  const answer = {
    name: 'AccessDeniedException',
    $fault: 'client' as const,
    message,
    $metadata: { httpStatusCode: service === Service.Sqs ? 403 : 400 },
  };
  return service === Service.Sqs ? new SQSServiceException(answer) : new DynamoDBServiceException(answer);
}
