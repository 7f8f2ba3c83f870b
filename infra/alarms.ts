import type { StageSettings } from '../stacks/schema.ts';
import { metricsNamespace } from './settings.ts';

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

/** Scheduled sweeps report their lag every minute; none for this long means the schedules stopped. */
const sweepSilenceSeconds = 600;

/**
 * The alarms docs/runbooks.md explains, each named by its runbook section, all notifying one SNS
 * topic, mailed to the stage's `alarmEmail` and sent on to its `alarmTopicArn` (a production stage
 * has one or the other). Missing data is not breaching (an idle stage is a healthy one) except for
 * the sweeps' heartbeat, whose missing data is the failure.
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
      treatMissingData: 'notBreaching',
      ...args,
      ...notify,
      alarmDescription: `${args.alarmDescription} Runbook: docs/runbooks.md#${runbook}`,
    });

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
  const apiMetric = (metricName: string) => ({
    namespace: 'AWS/ApiGateway',
    metricName,
    dimensions: { ApiId: watched.api.nodes.api.id },
    period: fiveMinutes,
    stat: 'Sum',
  });
  alarm('Api5xxRate', 'api-5xx-rate', {
    alarmDescription: `Over ${api5xxPercent}% of API responses were 5xx for ten minutes.`,
    metricQueries: [
      { id: 'errors', metric: apiMetric('5xx'), returnData: false },
      { id: 'requests', metric: apiMetric('Count'), returnData: false },
      {
        id: 'rate',
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        label: 'API 5xx %',
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
    dimensions: { service: 'webhook' },
    statistic: 'Sum',
    period: fiveMinutes,
    evaluationPeriods: 1,
    comparisonOperator: 'GreaterThanOrEqualToThreshold',
    threshold: rejectedDeliveries,
  });
  // A schedule that stops invoking the worker raises no Lambda error: only the silence shows.
  alarm('SweepsSilent', 'sweeps-silent', {
    alarmDescription: `No scheduled sweep reported its lag for ${sweepSilenceSeconds / 60} minutes: expiry and redispatch may have stopped.`,
    namespace: metricsNamespace,
    metricName: 'SweepLag',
    dimensions: { service: 'worker' },
    statistic: 'SampleCount',
    period: fiveMinutes,
    evaluationPeriods: sweepSilenceSeconds / fiveMinutes,
    comparisonOperator: 'LessThanThreshold',
    threshold: 1,
    treatMissingData: 'breaching',
  });
  return { topic };
}
