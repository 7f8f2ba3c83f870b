export {
  isolatedQueueName,
  isolatedQueuePrefix,
  type MessagingPort,
  routedFilterPolicy,
  TopicMissingError,
} from './ports.ts';
