import { defineStage } from './schema.ts';

export default defineStage({
  region: 'eu-west-1',
  eksClusterName: 'staging',
  previewDomain: 'preview.staging.example.com',
  publicOrigin: 'https://svc.staging.example.com',
  authMode: 'token',
  retainData: false,
});
