/**
 * Architecture rules, checked by `npm run check:architecture` (part of `npm test`). Paths are
 * resolved files: a workspace package import (`@svc/core`) resolves to its `packages/core/src/…`.
 */
const workspace = (...names) => `^packages/(${names.join('|')})/`;
/** Test code of a package: it may reach for the local stack and the stand-ins. */
const testCode = '(^packages/[^/]+/test/|\\.test\\.ts$)';

/**
 * Core's domains, lowest first: a domain imports only the kernel (core's flat files) and domains
 * of lower layers, never one of its own layer or above, so core stacks without arrows back up.
 * Test code and the test fixtures (`testing/`) may reach any of them.
 */
const coreLayers = [
  ['auth', 'idempotency', 'jobs', 'messaging'],
  ['catalog', 'drafts', 'health'],
  ['builds', 'cluster'],
  ['operations'],
  ['compositions'],
  ['frontends'],
  ['checks'],
  ['rollout'],
  ['forge', 'insight'],
  ['installation'],
];
const coreDomain = (...names) => `^packages/core/src/(${names.join('|')})/`;
const coreSource = (path) => ({ path, pathNot: [testCode, '^packages/core/src/testing/'] });
const layerRules = [
  {
    name: 'core-kernel-knows-no-domain',
    comment:
      'The shared kernel (core’s flat files: errors, clock, names, paging, …) is what every domain speaks; it imports none of them. index.ts, the namespace importers see, names them all.',
    severity: 'error',
    from: coreSource('^packages/core/src/(?!index\\.ts$)[^/]+$'),
    to: { path: '^packages/core/src/[^/]+/' },
  },
  {
    name: 'core-domain-has-a-layer',
    comment: 'Every folder of core is a domain placed in coreLayers (or the test fixtures).',
    severity: 'error',
    from: coreSource(`^packages/core/src/(?!(${[...coreLayers.flat(), 'testing'].join('|')})/)[^/]+/`),
    to: {},
  },
  ...coreLayers.map((layer, index) => ({
    name: `core-layer-${layer.join('-')}-points-down`,
    comment: `${layer.join(', ')} may import only the kernel and the domains below them (coreLayers): ${coreLayers.slice(0, index).flat().join(', ') || 'none'}.`,
    severity: 'error',
    from: coreSource(coreDomain(...layer)),
    to: { path: coreDomain(...coreLayers.slice(index).flat()), pathNot: '^packages/core/src/$1/' },
  })),
];

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...layerRules,
    {
      name: 'no-circular',
      comment: 'Files import each other in one direction only; a cycle means two modules are one.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-knows-no-vendor',
      comment:
        'packages/core is the domain: no AWS SDK, no HTTP framework, no Kubernetes client, not even their types; ports are written in its own terms. The contract and the client, which every program of the service and teams’ scripts load, are held to the same.',
      severity: 'error',
      from: { path: workspace('core', 'contract', 'client') },
      to: { path: 'node_modules/(@aws-sdk|@smithy|hono|@hono|@kubernetes/client-node|@octokit)/' },
    },
    {
      name: 'core-imports-no-workspace-package',
      comment: 'Everything depends on core; core depends on nothing of ours.',
      severity: 'error',
      from: { path: workspace('core') },
      to: { path: '^packages/', pathNot: workspace('core') },
    },
    {
      name: 'contract-builds-on-core-only',
      comment:
        'The contract declares the operations over core’s schemas; it knows no server, no client and no adapter.',
      severity: 'error',
      from: { path: workspace('contract') },
      to: { path: '^packages/', pathNot: workspace('core', 'contract') },
    },
    {
      name: 'client-is-derived-from-the-contract',
      comment:
        'The typed client is the contract’s operations over a transport: it imports the contract and core, nothing of the server.',
      severity: 'error',
      from: { path: workspace('client') },
      to: { path: '^packages/', pathNot: workspace('core', 'contract', 'client') },
    },
    {
      name: 'adapters-point-inward',
      comment:
        'aws, kube and github implement core’s ports; they never reach up into api, worker or the CLI, nor into each other.',
      severity: 'error',
      from: { path: workspace('aws', 'kube', 'github'), pathNot: testCode },
      to: { path: '^packages/', pathNot: [workspace('core'), '^packages/$1/'] },
    },
    {
      name: 'services-point-inward',
      comment:
        'api and worker are built on core (and on the adapters, through the wiring; see below); neither imports the other, the CLI or the local stack. The API binds its handlers to the contract and mounts the MCP tools (`/mcp`).',
      severity: 'error',
      from: { path: workspace('api', 'worker'), pathNot: testCode },
      to: {
        path: '^packages/',
        pathNot: [
          workspace('core', 'contract', 'wiring', 'aws', 'kube', 'github', 'console', 'mcp'),
          '^packages/$1/',
        ],
      },
    },
    {
      name: 'one-composition-root',
      comment:
        'The wiring builds what the API, the worker and the local stack run on, from the settings whose parts core, aws, kube and github declare; it knows no process around it. Adapters that only some processes load (the cluster client, SNS) are passed in, not imported. The worker’s wiring (`@svc/wiring/worker`, apart from what the API loads) adds the worker’s own deps.',
      severity: 'error',
      from: { path: workspace('wiring'), pathNot: testCode },
      to: {
        path: '^packages/',
        pathNot: [
          workspace('core', 'aws', 'github', 'wiring'),
          '^packages/kube/src/settings\\.ts$',
          '^packages/worker/',
        ],
      },
    },
    {
      name: 'only-the-worker-wiring-knows-the-worker',
      comment:
        'wireWorker, for the worker’s Lambda entry and the local stack, is the one file of the wiring that imports the worker: the API imports the rest at every cold start and loads none of it.',
      severity: 'error',
      from: { path: workspace('wiring'), pathNot: ['^packages/wiring/src/worker\\.ts$', testCode] },
      to: { path: workspace('worker') },
    },
    {
      name: 'wiring-loads-no-cluster-client-or-sns',
      comment:
        'The API imports the wiring at every cold start: @kubernetes/client-node and the SNS client stay out of it (the API loads the cluster client lazily and has no SNS client at all; `npm run bench:bundle`).',
      severity: 'error',
      from: { path: workspace('wiring'), pathNot: testCode },
      to: {
        path: [
          'node_modules/@kubernetes/client-node/',
          'node_modules/@aws-sdk/client-sns/',
          '^packages/aws/src/messaging\\.ts$',
        ],
      },
    },
    {
      name: 'only-the-api-mounts-the-console',
      comment: 'The console is served by the API on its own origin; nothing else imports it.',
      severity: 'error',
      from: { path: '^packages/', pathNot: [workspace('api', 'console')] },
      to: { path: workspace('console') },
    },
    {
      name: 'console-is-a-client-of-core',
      comment:
        'Pages call the same core use cases as the REST routes, with the identity the API’s auth edge hands them; they never reach into the API, the adapters or the stores’ implementations.',
      severity: 'error',
      from: { path: workspace('console'), pathNot: testCode },
      to: { path: '^packages/', pathNot: workspace('core', 'console') },
    },
    {
      name: 'only-the-api-mounts-mcp',
      comment: 'The worker has no agents to serve.',
      severity: 'error',
      from: { path: workspace('worker') },
      to: { path: workspace('mcp') },
    },
    {
      name: 'adapters-only-at-composition-roots',
      comment:
        'Handlers and steps see ports, not adapters: api and worker get theirs through the wiring (packages/wiring); only the entries of a deployed process (the API’s `src/entries/`: the Lambda handlers, the Node server, the operator scripts; the API runtime; the worker’s Lambda handler) pick what differs between processes (the lazy or eager cluster, SNS, the Lambda log and metrics).',
      severity: 'error',
      from: {
        path: workspace('api', 'worker'),
        pathNot: ['^packages/api/src/(runtime\\.ts|entries/)', '^packages/worker/src/lambda\\.ts$', testCode],
      },
      to: { path: workspace('wiring', 'aws', 'kube', 'github') },
    },
    {
      name: 'cli-speaks-http-only',
      comment:
        'The CLI talks to the service through the typed client over its own HTTP transport; of the service it imports the client, the contract and core’s schemas and rules, and the MCP tools it serves (svc mcp).',
      severity: 'error',
      from: { path: workspace('cli'), pathNot: testCode },
      to: { path: '^packages/', pathNot: [workspace('client', 'contract', 'core', 'cli', 'mcp')] },
    },
    {
      name: 'mcp-speaks-rest-only',
      comment:
        'The MCP tools are clients of the REST API through the typed client over the transport their host gives them (the CLI’s, the API in process): of the service they import the client, the contract and core’s schemas only, so both hosts run the same tools with the same authorization.',
      severity: 'error',
      from: { path: workspace('mcp'), pathNot: testCode },
      to: { path: '^packages/', pathNot: [workspace('client', 'contract', 'core', 'mcp')] },
    },
    {
      name: 'local-cluster-stands-alone',
      comment:
        'The local cluster is a Kubernetes API stand-in: of the service it knows core’s types (the hop report), nothing else.',
      severity: 'error',
      from: { path: workspace('local-cluster') },
      to: { path: '^packages/', pathNot: workspace('local-cluster', 'core') },
    },
    {
      name: 'local-cluster-uses-core-types-only',
      comment: 'Type imports vanish at run time, so the stand-in runs without the domain code.',
      severity: 'error',
      from: { path: workspace('local-cluster') },
      to: { path: workspace('core'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'local-iam-stands-alone',
      comment:
        'The IAM stand-in is AWS’s rules (the Service Authorization Reference, a policy simulator) over whatever policy it is given: it knows nothing of the service; the local stack hands it each function’s policy.',
      severity: 'error',
      from: { path: workspace('local-iam') },
      to: { path: ['^packages/', '^infra/'], pathNot: workspace('local-iam') },
    },
    {
      name: 'only-the-local-stack-reads-the-deploy',
      comment:
        'infra/ is what the deploy synthesizes. Of the packages only the local stack reads it, for each function’s IAM policy (`functionPermissions`), so what runs locally is held to what is deployed; the deployed code never imports its own deploy.',
      severity: 'error',
      from: { path: '^packages/', pathNot: ['^packages/local/', testCode] },
      to: { path: '^infra/' },
    },
    {
      name: 'local-forge-stands-alone',
      comment: 'The forge is a GitHub API stand-in; it knows nothing of the service.',
      severity: 'error',
      from: { path: workspace('local-forge') },
      to: { path: '^packages/', pathNot: workspace('local-forge') },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The CLI's build output (the bundles bin/svc.js loads) is not source.
    exclude: { path: '^packages/cli/dist/' },
    // TypeScript 7's compiler has no JavaScript API yet, which dependency-cruiser's own TypeScript
    // support needs; swc parses the sources instead (and still tells type-only imports apart).
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default'] },
  },
};
