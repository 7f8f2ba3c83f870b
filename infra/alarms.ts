import type { StageSettings } from '../stacks/schema.ts';
import { appName, metricsNamespace, scheduleArgs } from './settings.ts';

interface Watched {
  api: sst.aws.ApiGatewayV2;
  apiFunction: sst.aws.Function;
  webhook: sst.aws.Function;
  worker: sst.aws.Function;
  jobs: sst.aws.Queue;
  deadLetter: sst.aws.Queue;
}

const fiveMinutes = 300;
/** A job older than this has been retried for a long while, or nothing is consuming the queue. */
const oldestJobAgeSeconds = 900;
/** Share of API responses that are 5xx, in percent, over two five-minute periods. */
const api5xxPercent = 5;
/** Signature rejections in five minutes: one is a probe, a run of them a wrong or rotated secret. */
const rejectedDeliveries = 5;

/**
 * How long a schedule may go without a finished run before its alarm fires, and over which
 * periods CloudWatch looks: three missed runs, at least ten minutes, in periods of five minutes to
 * an hour (an alarm looks back one day at most).
 */
function sweepSilence(periodSeconds: number) {
  const silenceSeconds = Math.max(600, 3 * periodSeconds);
  const period = Math.min(Math.max(periodSeconds, fiveMinutes), 3600);
  const evaluationPeriods = Math.ceil(silenceSeconds / period);
  if (period * evaluationPeriods > 86_400) throw new Error(`a ${periodSeconds} s schedule cannot be watched`);
  return { period, evaluationPeriods };
}

/**
 * An alarm's name: the app and the stage, then the alarm. A stage's name holds no `/`, so no stage's
 * alarms are another's (`preview-composition/prod/*` is not `preview-composition/prod-eu/*`): what
 * the deploy role's grant on alarms names (infra/ci-role.ts).
 */
export const alarmName = (stage: string, id: string) => `${appName}/${stage}/${id}`;

/**
 * The alarms docs/runbooks.md explains, each named by its runbook section, all notifying one SNS
 * topic, mailed to the stage's `alarmEmail` and sent on to its `alarmTopicArn` (a production stage
 * has one or the other). Missing data is not breaching (an idle stage is a healthy one) except for
 * the sweeps' heartbeats, whose missing data is the failure. The service's own metrics are the
 * stage's (`stage` dimension, packages/aws lambda-output): staging's never keep production's green.
 */
export function alarms(settings: StageSettings, watched: Watched) {
  const topic = new sst.aws.SnsTopic('Alarms');
  if (settings.alarmEmail) {
    new aws.sns.TopicSubscription('AlarmsEmail', {
      topic: topic.arn,
      protocol: 'email',
      endpoint: settings.alarmEmail,
    });
  }
  type AlarmArgs = ConstructorParameters<typeof aws.cloudwatch.MetricAlarm>[1];
  const recipients = [topic.arn, ...(settings.alarmTopicArn ? [settings.alarmTopicArn] : [])];
  const notify = { alarmActions: recipients, okActions: recipients } satisfies Partial<AlarmArgs>;
  const alarm = (id: string, runbook: string, args: Omit<AlarmArgs, keyof typeof notify>) =>
    new aws.cloudwatch.MetricAlarm(id, {
      name: alarmName($app.stage, id),
      treatMissingData: 'notBreaching',
      ...args,
      ...notify,
      alarmDescription: `${args.alarmDescription} Runbook: docs/runbooks.md#${runbook}`,
    });
  const own = (service: string) => ({ service, stage: $app.stage });

  alarm('DeadLetterNotEmpty', 'dead-letter-queue-not-empty', {
    alarmDescription: 'A job failed every attempt and sits in the dead-letter queue.',
    namespace: 'AWS/SQS',
    metricName: 'ApproximateNumberOfMessagesVisible',
    dimensions: { QueueName: watched.deadLetter.nodes.queue.name },
    statistic: 'Maximum',
    period: fiveMinutes,
    evaluationPeriods: 1,
    comparisonOperator: 'GreaterThanThreshold',
    threshold: 0,
  });
  alarm('OldestJobAge', 'oldest-job-too-old', {
    alarmDescription: `The oldest job has waited over ${oldestJobAgeSeconds} s.`,
    namespace: 'AWS/SQS',
    metricName: 'ApproximateAgeOfOldestMessage',
    dimensions: { QueueName: watched.jobs.nodes.queue.name },
    statistic: 'Maximum',
    period: fiveMinutes,
    evaluationPeriods: 1,
    comparisonOperator: 'GreaterThanThreshold',
    threshold: oldestJobAgeSeconds,
  });
  const functions = { Api: watched.apiFunction, Worker: watched.worker, Webhook: watched.webhook };
  const lambdaAlarms = [
    {
      metricName: 'Errors',
      runbook: 'function-errors',
      what: 'failed invocations (crash, timeout, out of memory)',
    },
    { metricName: 'Throttles', runbook: 'function-throttles', what: 'was throttled (concurrency limit)' },
  ] as const;
  for (const [name, fn] of Object.entries(functions)) {
    for (const { metricName, runbook, what } of lambdaAlarms) {
      alarm(`${name}${metricName}`, runbook, {
        alarmDescription: `The ${name.toLowerCase()} function ${what}.`,
        namespace: 'AWS/Lambda',
        metricName,
        dimensions: { FunctionName: fn.name },
        statistic: 'Sum',
        period: fiveMinutes,
        evaluationPeriods: 1,
        comparisonOperator: 'GreaterThanOrEqualToThreshold',
        threshold: 1,
      });
    }
  }
  // The stage's metrics, and /healthz's own (a route of its own, with the stage's detailed
  // metrics): anyone may call /healthz, and its 503s while a dependency is down must not page.
  const apiMetric = (metricName: string, route: Record<string, string> = {}) => ({
    namespace: 'AWS/ApiGateway',
    metricName,
    dimensions: { ApiId: watched.api.nodes.api.id, Stage: '$default', ...route },
    period: fiveMinutes,
    stat: 'Sum',
  });
  const healthz = { Method: 'GET', Resource: '/healthz' };
  alarm('Api5xxRate', 'api-5xx-rate', {
    alarmDescription: `Over ${api5xxPercent}% of API responses but /healthz's were 5xx for ten minutes.`,
    metricQueries: [
      { id: 'errors', metric: apiMetric('5xx'), returnData: false },
      { id: 'requests', metric: apiMetric('Count'), returnData: false },
      { id: 'healthErrors', metric: apiMetric('5xx', healthz), returnData: false },
      { id: 'healthRequests', metric: apiMetric('Count', healthz), returnData: false },
      { id: 'served', expression: 'requests - FILL(healthRequests, 0)', returnData: false },
      {
        id: 'rate',
        expression: 'IF(served > 0, 100 * (errors - FILL(healthErrors, 0)) / served, 0)',
        label: 'API 5xx % (without /healthz)',
        returnData: true,
      },
    ],
    evaluationPeriods: 2,
    datapointsToAlarm: 2,
    comparisonOperator: 'GreaterThanThreshold',
    threshold: api5xxPercent,
  });
  alarm('WebhookFailures', 'webhook-failures', {
    alarmDescription: 'The webhook answered GitHub with a 5xx: a delivery may not be stored.',
    namespace: 'AWS/Lambda',
    metricName: 'Url5xxCount',
    dimensions: { FunctionName: watched.webhook.name },
    statistic: 'Sum',
    period: fiveMinutes,
    evaluationPeriods: 1,
    comparisonOperator: 'GreaterThanOrEqualToThreshold',
    threshold: 1,
  });
  alarm('WebhookSignaturesRejected', 'webhook-signatures-rejected', {
    alarmDescription:
      'Deliveries were refused for their signature: the webhook secret may not match the app.',
    namespace: metricsNamespace,
    metricName: 'WebhookDeliveriesRejected',
    dimensions: own('webhook'),
    statistic: 'Sum',
    period: fiveMinutes,
    evaluationPeriods: 1,
    comparisonOperator: 'GreaterThanOrEqualToThreshold',
    threshold: rejectedDeliveries,
  });
  // A schedule that stops invoking the worker raises no Lambda error, and one sweep that fails every
  // run leaves the others beating: each schedule has its heartbeat, the expiry sweep's first.
  for (const schedule of scheduleArgs()) {
    const { period, evaluationPeriods } = sweepSilence(schedule.periodSeconds);
    alarm(`${schedule.id}Silent`, 'sweep-silent', {
      alarmDescription: `The ${schedule.event.schedule} schedule (${schedule.description}) finished no run for ${(period * evaluationPeriods) / 60} minutes.`,
      namespace: metricsNamespace,
      metricName: 'SweepHeartbeat',
      dimensions: { ...own('worker'), schedule: schedule.event.schedule },
      statistic: 'Sum',
      period,
      evaluationPeriods,
      comparisonOperator: 'LessThanThreshold',
      threshold: 1,
      treatMissingData: 'breaching',
    });
  }
  return { topic };
}
