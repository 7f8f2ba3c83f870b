import { defineStage } from './schema.ts';

export default defineStage({
  region: 'eu-west-1',
  eksClusterName: 'change-me',
  previewDomain: 'preview.example.com',
  authMode: 'token',
});
