/** Only the messaging port and the rules of its names and filter policies. */
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
