/**
 * A change across repositories end to end through the local forge: pull requests of two
 * repositories of the demo project sharing a head branch get one composition, the preview URL
 * answering each component from its pull request's build at every step, each pull request's head
 * commit deployed (GitHub Deployments) as the change moves; a push whose webhook was lost is
 * caught up by the reconciliation; a failure names the component and whose build it runs; a
 * conflict, too many overrides, two baselines and repositories of two projects are refused on
 * every pull request of the change, and a pull request relabelled into another group leaves it. Real webhooks, the
 * real GitHub App adapter, builds published through the build-publication route as CI does.
 */
import { Checks, type Forge, Resources } from '@svc/core';
import { ciImage, type Stack } from '@svc/local';
import { demoManifestWithoutMessaging } from '@svc/local/demo';
import type { HttpClient } from '@svc/local/testing';
import { useChromium, useTestStack } from '@svc/local/testing';
import { gatewayFetch } from '@svc/local-cluster';
import type { LocalForge } from '@svc/local-forge';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, svc } from '../packages/cli/test/helpers.ts';
import { deployedAs, deploymentsOf, installationClient } from './support/forge.ts';

const api = 'demo-org/service-a';
const web = 'demo-org/service-b';
/** A repository of another project (applied by the last test). */
const elsewhere = 'demo-org/service-c';
const componentOf: Record<string, string> = {
  [api]: 'service-a',
  [web]: 'service-b',
  [elsewhere]: 'service-c',
};
let stack: Stack;
let http: HttpClient;
let forge: LocalForge;

useTestStack(
  {
    alongside: ensureBuilt,
    forge: { publishOnPush: false, writeIntervalMs: 0 },
    forgeSettings: { pollSeconds: 1, dispatchGraceSeconds: 1, enqueueTimeoutMs: 300 },
  },
  (environment) => {
    stack = environment.stack;
    http = environment.http;
    forge = stack.forge as LocalForge;
  },
);

const chromium = useChromium();

const branch = 'feature-change';

/** CI: publishes the build of `sha` (its image's tag ends as the branch says: `-missing` fails to pull). */
async function publish(repository: string, sha: string, ref = branch) {
  const component = componentOf[repository] as string;
  const answer = await http.post('/v1/projects/demo/builds', {
    component,
    repository,
    commit_sha: sha,
    ref,
    image: ciImage(component, { headSha: sha, branch: ref }),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
}

const policyOf = (repository: string, project = 'demo') =>
  `/v1/projects/${project}/repositories/${encodeURIComponent(repository)}/preview-policy`;

async function groupByBranch(
  repository: string,
  feedback: Forge.FeedbackMode,
  components = [componentOf[repository]],
  project = 'demo',
  baseline = 'staging',
) {
  const answer = await http.put(policyOf(repository, project), {
    enabled: true,
    trigger_label: 'preview',
    baseline,
    components,
    group_by: 'branch',
    feedback,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
}

async function previewOf(repository: string, number: number): Promise<Forge.PreviewView | undefined> {
  const { body } = await http.get('/v1/forge/previews?limit=200');
  return (body.items as Forge.PreviewView[]).find(
    (p) => p.repository === repository && p.pull_request.number === number,
  );
}

/** Polls the preview of `repository#number` until `done` holds; the message shows where it stopped. */
async function until(repository: string, number: number, done: (preview: Forge.PreviewView) => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const preview = await previewOf(repository, number);
    if (preview && done(preview)) return preview;
    if (Date.now() > deadline)
      throw new Error(`preview of ${repository}#${number} is ${JSON.stringify(preview)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The image serving each component behind a preview URL, from the demo workloads' hop report. */
async function serving(url: string): Promise<Record<string, string>> {
  const response = await gatewayFetch(stack.gatewayUrl, url);
  const hops = Checks.hopsOf(await response.json().catch(() => null)) ?? [];
  return Object.fromEntries(hops.map((hop) => [hop.component, hop.image]));
}

/** Waits until the URL serves each component as `expected` says; `not:` the image it must no longer serve. */
async function servingUntil(url: string, expected: Record<string, string>) {
  const deadline = Date.now() + 30_000;
  const matches = (served: string | undefined, wanted: string) =>
    wanted.startsWith('not:') ? served !== undefined && served !== wanted.slice(4) : served === wanted;
  for (;;) {
    const images = await serving(url);
    if (Object.entries(expected).every(([component, wanted]) => matches(images[component], wanted)))
      return images;
    if (Date.now() > deadline) throw new Error(`${url} serves ${JSON.stringify(images)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** What the pull request shows, read through the forge's API: its comments and its head commit's check runs. */
async function feedbackOf(repository: string, number: number, headSha: string): Promise<string> {
  const [owner = '', repo = ''] = repository.split('/');
  const client = installationClient(forge);
  const [comments, runs] = await Promise.all([
    client.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      owner,
      repo,
      issue_number: number,
    }),
    client.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { owner, repo, ref: headSha }),
  ]);
  return [
    ...comments.data.map((comment) => comment.body ?? ''),
    ...runs.data.check_runs.map((run) => `${run.output.title}: ${run.output.summary}`),
  ].join('\n');
}

/** Waits until the pull request's feedback says `text`. */
async function told(repository: string, number: number, headSha: string, text: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const said = await feedbackOf(repository, number, headSha);
    if (said.includes(text)) return said;
    if (Date.now() > deadline) throw new Error(`${repository}#${number} says ${said}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function open(repository: string, labels = ['preview'], head = branch) {
  const { pullRequest } = await forge.open({ repository, head, labels });
  if (!pullRequest) throw new Error('the forge opened no pull request');
  return pullRequest;
}

const image = (repository: string, sha: string) =>
  ciImage(componentOf[repository] as string, { headSha: sha, branch });

describe('a change across repositories', () => {
  it('is formed, pushed, joined, narrowed and closed, the preview URL answering each component from the right build', async () => {
    await forge.install({ repository: api });
    // Feedback as each repository's policy says: service-a's as deployments, service-b's as both.
    await groupByBranch(api, 'deployment');
    await groupByBranch(web, 'both');

    const first = await open(api);
    await publish(api, first.headSha);
    const formed = await until(api, first.number, (p) => p.state === 'ready');
    expect(formed.change?.id).toMatch(/^ch-/);
    let url = formed.url as string;
    await servingUntil(url, { 'service-a': image(api, first.headSha) });

    // Joined: its build is not published yet, so the composition keeps what it runs.
    const second = await open(web);
    await until(
      web,
      second.number,
      (p) => p.state === 'waiting_for_build' && p.change?.id === formed.change?.id,
    );
    await told(web, second.number, second.headSha, 'waiting for the build of service-b');
    await publish(web, second.headSha);
    const joined = await until(web, second.number, (p) => p.state === 'ready');
    expect(joined.url).toBe(url);
    expect(joined.composition_id).toBe(formed.composition_id);
    // Either pull request's preview shows the change with both.
    expect(joined.change?.pull_requests.map((pr) => `${pr.repository}#${pr.number}`)).toEqual([
      `${api}#${first.number}`,
      `${web}#${second.number}`,
    ]);
    const listed = await svc(['pr-preview', 'list', '--project', 'demo'], { apiUrl: stack.apiUrl });
    expect(listed.code, listed.stderr).toBe(0);
    const rows = (listed.json() as { items: Forge.PreviewView[] }).items.filter(
      (p) => p.change?.id === joined.change?.id,
    );
    expect(rows.map((p) => p.repository).sort()).toEqual([api, web]);
    for (const id of [formed.id, joined.id]) {
      const shown = await svc(['pr-preview', 'get', id], { apiUrl: stack.apiUrl });
      expect((shown.json() as Forge.PreviewView).change).toEqual(joined.change);
    }
    await servingUntil(url, {
      'service-a': image(api, first.headSha),
      'service-b': image(web, second.headSha),
    });
    // Each pull request's head commit is deployed to the branch's environment, with the shared URL
    // and the console's page of the composition; the one that joined said queued while it waited.
    const heads = [
      [api, first.headSha],
      [web, second.headSha],
    ] as const;
    for (const [repository, sha] of heads) {
      const [deployment, ...others] = await deployedAs(forge, repository, sha, 'success');
      expect(others).toEqual([]);
      expect(deployment).toMatchObject({
        environment: `preview/${branch}`,
        transient_environment: true,
        production_environment: false,
        newest: {
          environment_url: url,
          log_url: `${stack.apiUrl}/console/compositions/${formed.composition_id}`,
        },
      });
    }
    expect((await deploymentsOf(forge, web, second.headSha))[0]?.states).toContain('queued');
    // The console shows the change as one row: its pull requests, their one preview, one stop.
    const page = await chromium.newPage();
    await page.goto(`${stack.apiUrl}/console/pr-previews?project=demo`);
    const row = page.locator(`tr[data-change="${joined.change?.id}"]`);
    await row.locator('[data-state=ready]').waitFor();
    expect(await row.count()).toBe(1);
    const members = [`${api}#${first.number}`, `${web}#${second.number}`];
    for (const name of members) expect(await row.getByRole('link', { name }).count()).toBe(1);
    expect(await row.getByRole('link', { name: url }).count()).toBe(1);
    const stopButton = row.getByRole('button', { name: `Stop the preview of ${members.join(', ')}` });
    expect(await stopButton.count()).toBe(1);
    expect(await page.locator(`#preview-${formed.id}, #preview-${joined.id}`).count()).toBe(0);
    await page.close();

    // Pushed, its webhook lost: the reconciliation catches the change up, and only that pull
    // request's component moves; the replaced commit's deployment goes inactive.
    forge.setFaults({ webhookFailures: 1 });
    const pushed = (await forge.push({ repository: web, number: second.number })).pullRequest
      ?.headSha as string;
    await publish(web, pushed);
    expect((await previewOf(web, second.number))?.pull_request.head_sha).toBe(second.headSha);
    await stack.scheduler.run(Resources.ScheduleName.ForgeReconcile);
    await until(web, second.number, (p) => p.state === 'ready' && p.deployed_sha === pushed);
    await deployedAs(forge, web, pushed, 'success');
    await deployedAs(forge, web, second.headSha, 'inactive');
    await servingUntil(url, { 'service-a': image(api, first.headSha), 'service-b': image(web, pushed) });
    const { body: compositions } = await http.get('/v1/compositions?project=demo&limit=200');
    const live = (compositions.items as { id: string; phase: string }[]).filter(
      (c) => c.phase !== 'destroyed',
    );
    expect(live.filter((c) => c.id === formed.composition_id)).toHaveLength(1);

    // A stop from either pull request stops the whole change; a restart from the other brings it back.
    const stop = await http.post(`/v1/forge/previews/${joined.id}/stop`, {});
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    await until(api, first.number, (p) => p.state === 'stopped');
    await until(web, second.number, (p) => p.state === 'stopped');
    const restart = await http.post(`/v1/forge/previews/${formed.id}/restart`, {});
    expect(restart.status, JSON.stringify(restart.body)).toBe(200);
    const restarted = await until(web, second.number, (p) => p.state === 'ready' && p.url !== null);
    url = restarted.url as string;
    expect(restarted.composition_id).not.toBe(formed.composition_id);
    await until(api, first.number, (p) => p.state === 'ready' && p.url === url);
    await servingUntil(url, { 'service-a': image(api, first.headSha), 'service-b': image(web, pushed) });
    // A generic DELETE of the change's composition is a stop of the change.
    const deleted = await http.delete(`/v1/compositions/${restarted.composition_id}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBeLessThan(300);
    await until(api, first.number, (p) => p.state === 'stopped' && p.automation === 'suppressed');
    await until(web, second.number, (p) => p.state === 'stopped');
    await http.post(`/v1/forge/previews/${joined.id}/restart`, {});
    const again = await until(api, first.number, (p) => p.state === 'ready' && p.url !== null);
    url = again.url as string;
    await until(web, second.number, (p) => p.state === 'ready' && p.url === url);

    // Narrowed: the first leaves, its component returns to the baseline.
    await forge.unlabel({ repository: api, number: first.number, label: 'preview' });
    await until(api, first.number, (p) => p.state === 'stopped' && p.change === null);
    await until(web, second.number, (p) => p.state === 'ready' && p.url === url);
    await servingUntil(url, {
      'service-a': `not:${image(api, first.headSha)}`,
      'service-b': image(web, pushed),
    });
    await deployedAs(forge, api, first.headSha, 'inactive');

    // Closed: the last one leaving destroys the composition.
    await forge.close({ repository: web, number: second.number });
    await until(web, second.number, (p) => p.state === 'stopped');
    const { body: after } = await http.get(`/v1/compositions/${again.composition_id}`);
    expect(['destroying', 'destroyed']).toContain(after.phase);
    await deployedAs(forge, web, pushed, 'inactive');
  });

  it('a failed composition tells each pull request which component failed and whose build it runs', async () => {
    const head = 'broken-missing';
    const [first, second] = [await open(api, ['preview'], head), await open(web, ['preview'], head)];
    await publish(api, first.headSha, 'broken');
    await publish(web, second.headSha, head);
    const failed = await until(api, first.number, (p) => p.state === 'failed');
    expect(failed.change?.pull_requests).toHaveLength(2);
    const blame = `service-b (the build of ${web}#${second.number}): image `;
    await told(api, first.number, first.headSha, blame);
    await told(web, second.number, second.headSha, blame);
    for (const pr of [first, second]) await forge.close({ repository: pr.repository, number: pr.number });
    await until(api, first.number, (p) => p.state === 'stopped');
  });

  it('two pull requests overriding one component are refused, the reason on both, until one is relabelled into another group', async () => {
    const labels = ['preview', 'preview-group:clash'];
    const one = await open(web, labels, 'clash-one');
    const two = await open(web, labels, 'clash-two');
    for (const pr of [one, two]) {
      const refused = await until(web, pr.number, (p) => p.state === 'refused');
      expect(refused.last_error?.code).toBe('change_component_conflict');
      expect(refused.last_error?.message).toContain('service-b');
      const said = await told(web, pr.number, pr.headSha, 'change_component_conflict');
      expect(said).toContain(
        `component service-b is overridden by both ${web}#${one.number} and ${web}#${two.number}`,
      );
    }

    // Moved to another group, the second leaves the change: each is a change of its own, refused no more.
    await forge.unlabel({ repository: web, number: two.number, label: 'preview-group:clash' });
    await forge.label({ repository: web, number: two.number, label: 'preview-group:apart' });
    const alone = (p: Forge.PreviewView) =>
      p.state === 'waiting_for_build' && p.change?.pull_requests.length === 1;
    const [stayed, moved] = [await until(web, one.number, alone), await until(web, two.number, alone)];
    expect(moved.change?.id).not.toBe(stayed.change?.id);
    expect(stayed.change?.pull_requests.map((pr) => pr.number)).toEqual([one.number]);
    for (const pr of [one, two]) await forge.close({ repository: web, number: pr.number });
  });

  it('too many overrides, two baselines, and repositories of two projects, are refused with the reason on every pull request', async () => {
    /** Waits until each pull request's preview is refused with `code`, and its feedback says so. */
    const refusedOnEach = async (
      prs: { repository: string; number: number; headSha: string }[],
      code: string,
    ) => {
      for (const pr of prs) {
        const refused = await until(pr.repository, pr.number, (p) => p.state === 'refused');
        expect(refused.last_error?.code).toBe(code);
        await told(pr.repository, pr.number, pr.headSha, code);
      }
    };
    // service-a's policy now overrides three components: with service-b's, four.
    await groupByBranch(api, 'comment', ['service-a', 'service-c', 'service-d']);
    const many = [await open(api, ['preview'], 'too-many'), await open(web, ['preview'], 'too-many')];
    await refusedOnEach(many, 'change_too_many_overrides');

    // service-a's previews on the demo's other baseline, service-b's on staging: one change, refused.
    await groupByBranch(api, 'comment', ['service-a'], 'demo', 'staging-sleepy');
    const apart = [await open(api, ['preview'], 'apart'), await open(web, ['preview'], 'apart')];
    await refusedOnEach(apart, 'change_baselines_differ');

    // A repository of another project on a branch of the same name: one change, refused.
    const applied = await http.post('/v1/catalog/apply', demoManifestWithoutMessaging('other'));
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    await forge.install({ repository: elsewhere });
    await groupByBranch(elsewhere, 'comment', ['service-c'], 'other');
    const mixed = [await open(web, ['preview'], 'mixed'), await open(elsewhere, ['preview'], 'mixed')];
    await refusedOnEach(mixed, 'change_projects_differ');
  });
});
