export {
  isolatedQueueName,
  isolatedQueuePrefix,
  type Leftover,
  MessagingAccessDeniedError,
  type MessagingPort,
  routedFilterPolicy,
  TopicMissingError,
  topicGranted,
} from './ports.ts';
