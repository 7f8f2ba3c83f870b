export * from './clients.ts';
