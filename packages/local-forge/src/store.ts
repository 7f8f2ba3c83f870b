// Lookups and small mutations over ForgeState. Every mutation ends with changed(), which is how
// persistence learns that a snapshot is due.

import {
  type AccountRecord,
  AccountType,
  type ForgeState,
  type InstallationRecord,
  type LabelRecord,
  type PullRecord,
  type RepositoryRecord,
  randomSha,
  timestamp,
} from './state.ts';

/** GitHub's default label colours, so labels created on the fly look like GitHub's. */
const LABEL_COLOR = 'ededed';

export class ForgeStore {
  readonly state: ForgeState;
  private readonly onChange: () => void;

  constructor(state: ForgeState, onChange: () => void) {
    this.state = state;
    this.onChange = onChange;
  }

  changed(): void {
    this.onChange();
  }

  nextId(): number {
    this.state.nextId += 1;
    return this.state.nextId;
  }

  account(login: string): AccountRecord | undefined {
    return this.state.accounts.find((a) => a.login.toLowerCase() === login.toLowerCase());
  }

  ensureAccount(login: string, type: AccountType = AccountType.user): AccountRecord {
    const existing = this.account(login);
    if (existing) return existing;
    const account = { id: this.nextId(), login, type };
    this.state.accounts.push(account);
    return account;
  }

  /** Repository names are case-insensitive on GitHub. */
  repository(owner: string, name: string): RepositoryRecord | undefined {
    const o = owner.toLowerCase();
    const n = name.toLowerCase();
    return this.state.repositories.find((r) => r.owner.toLowerCase() === o && r.name.toLowerCase() === n);
  }

  repositoryById(id: number): RepositoryRecord {
    const repository = this.state.repositories.find((r) => r.id === id);
    if (!repository) throw new Error(`forge state is inconsistent: no repository ${id}`);
    return repository;
  }

  ensureRepository(owner: string, name: string, options: { fork?: boolean } = {}): RepositoryRecord {
    const existing = this.repository(owner, name);
    if (existing) return existing;
    this.ensureAccount(owner, options.fork ? AccountType.user : AccountType.organization);
    const sha = randomSha();
    const repository: RepositoryRecord = {
      id: this.nextId(),
      owner,
      name,
      private: true,
      fork: options.fork ?? false,
      defaultBranch: 'main',
      branches: { main: sha },
      commits: [sha],
      createdAt: timestamp(),
    };
    this.state.repositories.push(repository);
    return repository;
  }

  /** Creates the branch from the default branch's head when it does not exist yet. */
  branchSha(repository: RepositoryRecord, branch: string): string {
    const existing = repository.branches[branch];
    if (existing) return existing;
    const sha = randomSha();
    this.pushCommit(repository, branch, sha);
    return sha;
  }

  pushCommit(repository: RepositoryRecord, branch: string, sha: string): void {
    repository.branches[branch] = sha;
    if (!repository.commits.includes(sha)) repository.commits.push(sha);
  }

  /** A ref as the commits endpoints accept it: a branch name or a known SHA. */
  resolveRef(repository: RepositoryRecord, ref: string): string | undefined {
    const branch = repository.branches[ref.replace(/^refs\/heads\//, '')];
    if (branch) return branch;
    const lower = ref.toLowerCase();
    if (lower.length < 7) return undefined;
    return repository.commits.find((sha) => sha.startsWith(lower));
  }

  installation(id: number): InstallationRecord | undefined {
    return this.state.installations.find((i) => i.id === id);
  }

  installationOfAccount(login: string): InstallationRecord | undefined {
    return this.state.installations.find((i) => i.account.toLowerCase() === login.toLowerCase());
  }

  installationOfRepository(repositoryId: number): InstallationRecord | undefined {
    return this.state.installations.find((i) => i.repositoryIds.includes(repositoryId));
  }

  pulls(repositoryId: number): PullRecord[] {
    return this.state.pulls.filter((p) => p.repositoryId === repositoryId);
  }

  pull(repositoryId: number, number: number): PullRecord | undefined {
    return this.state.pulls.find((p) => p.repositoryId === repositoryId && p.number === number);
  }

  /** Issues and pull requests share one number sequence per repository. */
  nextIssueNumber(repositoryId: number): number {
    return this.pulls(repositoryId).reduce((max, p) => Math.max(max, p.number), 0) + 1;
  }

  label(repositoryId: number, name: string): LabelRecord | undefined {
    const lower = name.toLowerCase();
    return this.state.labels.find((l) => l.repositoryId === repositoryId && l.name.toLowerCase() === lower);
  }

  /** Adding an unknown label to an issue creates it, as GitHub's add-labels endpoint does. */
  ensureLabel(repositoryId: number, name: string): LabelRecord {
    const existing = this.label(repositoryId, name);
    if (existing) return existing;
    const label = { id: this.nextId(), repositoryId, name, color: LABEL_COLOR, description: '' };
    this.state.labels.push(label);
    return label;
  }
}
