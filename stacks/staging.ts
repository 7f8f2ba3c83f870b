import { defineStage } from './schema.ts';

export default defineStage({
  region: 'eu-west-1',
  eksClusterName: 'staging',
  previewDomain: 'preview.staging.example.com',
  publicOrigin: 'https://svc.staging.example.com',
  authMode: 'token',
  retainData: false,
  // Replace with your team's address (or set alarmTopicArn): staging's alarms are how a bad commit shows before production.
  alarmEmail: 'preview-alarms@example.com',
  messageTopics: ['demo-events'],
});
