import { defineStage } from './schema.ts';

export default defineStage({
  region: 'eu-west-1',
  eksClusterName: 'change-me',
  previewDomain: 'preview.example.com',
  publicOrigin: 'https://svc.example.com',
  authMode: 'token',
});
