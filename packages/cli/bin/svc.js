#!/usr/bin/env node
// The `svc` executable: load the bundle built by `npm run build:cli` (root `prepare` runs it).
// CommonJS (bin/package.json), like the bundle: Node starts it without its ES module loader.
const { enableCompileCache } = require('node:module');

// Node ≥ 22.1 caches compiled code between runs, which shortens every start after the first.
enableCompileCache?.();

try {
  require('../dist/svc.cjs');
} catch (error) {
  if (error?.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes('svc.cjs')) throw error;
  process.stderr.write(
    `${JSON.stringify({
      type: '/docs/cli.md#cli_not_built',
      title: 'CLI not built',
      status: null,
      detail: 'svc is not built: run "npm run build:cli" (npm install does it) in the repository',
      code: 'cli_not_built',
      errors: [],
    })}\n`,
  );
  // `installation check` answers its verdict with 1 and 2, so a CLI that could not run exits 7 there (docs/cli.md).
  process.exitCode = process.argv[2] === 'installation' ? 7 : 1;
}
