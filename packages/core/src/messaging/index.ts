export {
  FilterPolicyQuotaError,
  filterPoliciesPerTopic,
  isolatedQueueName,
  isolatedQueuePrefix,
  type Leftover,
  MessagingAccessDeniedError,
  type MessagingPort,
  routedFilterPolicy,
  TopicMissingError,
} from './ports.ts';
