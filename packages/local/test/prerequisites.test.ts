/**
 * The prerequisites step `npm start`, `npm test` and .ci/run share (packages/local/scripts/
 * prerequisites.sh), run as they run it, on a PATH of stand-ins: a Java that answers
 * `java -version`, an apt-get and a sudo that record what they were asked, an id that says who is
 * running. It installs what is missing where it can, and otherwise stops at once with the command.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const script = join(repoRoot, 'packages', 'local', 'scripts', 'prerequisites.sh');

interface Machine {
  java?: string;
  uid?: number;
  apt?: boolean;
  sudo?: 'passwordless' | 'asks';
  chromium?: boolean;
}

function executable(path: string, body: string): void {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

/** A bin directory holding only what the script may use, and the stand-ins `machine` asks for. */
function machineOf(machine: Machine) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-prereq-'));
  const bin = join(dir, 'bin');
  const log = join(dir, 'commands.log');
  spawnSync('mkdir', [bin]);
  for (const tool of ['sed', 'head', 'uname', 'env']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
  // A Java answers `java -version` on stderr, as Java does.
  const java = (version: string) => `echo 'openjdk version "${version}" 2026-01-20' >&2`;
  if (machine.java) executable(join(bin, 'java'), java(machine.java));
  executable(join(dir, 'java-17'), java('17.0.9'));
  executable(join(bin, 'id'), `echo ${machine.uid ?? 0}`);
  const chromium = join(dir, 'chromium');
  if (machine.chromium) executable(chromium, 'exit 0');
  if (machine.apt) {
    // Installing the JRE puts a java on PATH, installing chromium the browser, as apt-get would.
    executable(
      join(bin, 'apt-get'),
      [
        `echo "apt-get $*" >> ${log}`,
        `case "$*" in *openjdk-17*) /bin/cp ${join(dir, 'java-17')} ${join(bin, 'java')};; esac`,
        `case "$*" in *chromium*) /bin/cp ${join(dir, 'java-17')} ${chromium};; esac`,
      ].join('\n'),
    );
  }
  if (machine.sudo) {
    executable(
      join(bin, 'sudo'),
      machine.sudo === 'asks'
        ? `echo "sudo $*" >> ${log}; exit 1`
        : `echo "sudo $*" >> ${log}; [ "$1" = -n ] && shift && [ "$1" = true ] && exit 0; "$@"`,
    );
  }
  const run = (...tools: string[]) => {
    const result = spawnSync('/bin/sh', [script, ...tools], {
      encoding: 'utf8',
      env: { PATH: bin, CHROMIUM_PATH: chromium },
    });
    const commands = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
    return { code: result.status, stderr: result.stderr, commands };
  };
  return { run };
}

describe('the prerequisites step', () => {
  it('does nothing and says nothing when Java 17+ and Chromium are there', () => {
    const result = machineOf({ java: '17.0.9', chromium: true, apt: true }).run('java', 'chromium');
    expect(result).toEqual({ code: 0, stderr: '', commands: [] });
  });

  it('as root on Debian/Ubuntu, installs what is missing with apt-get, and goes on', () => {
    const result = machineOf({ apt: true, uid: 0 }).run('java', 'chromium');
    expect(result.code, result.stderr).toBe(0);
    expect(result.commands).toEqual([
      'apt-get update -qq',
      'apt-get install -y -qq openjdk-17-jre-headless chromium',
    ]);
    expect(result.stderr).toContain('installing openjdk-17-jre-headless chromium for java chromium');
  });

  it('with passwordless sudo, installs through sudo; a Java older than 17 counts as missing', () => {
    const result = machineOf({ apt: true, uid: 1000, sudo: 'passwordless', java: '1.8.0_292' }).run('java');
    expect(result.code, result.stderr).toBe(0);
    expect(result.commands).toEqual([
      'sudo -n true',
      'sudo apt-get update -qq',
      'apt-get update -qq',
      'sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless',
      'apt-get install -y -qq openjdk-17-jre-headless',
    ]);
  });

  it('stops at once with the one command to run when sudo would ask for a password', () => {
    const result = machineOf({ apt: true, uid: 1000, sudo: 'asks', java: '17.0.9' }).run('java', 'chromium');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('missing: Chromium at');
    expect(result.stderr).toContain('run: sudo apt-get install -y chromium\n');
    expect(result.commands).toEqual(['sudo -n true']);
  });

  it('stops with the command to run where there is no apt-get', () => {
    const result = machineOf({ uid: 1000 }).run('java');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('missing: Java 17+');
    expect(result.stderr).toMatch(
      /run: (brew install openjdk@17|install java with your system's package manager)/,
    );
  });

  it('is the step npm start, npm test and .ci/run take first', () => {
    const { scripts } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    const step = 'sh packages/local/scripts/prerequisites.sh';
    expect(scripts.start.startsWith(`${step} java && `)).toBe(true);
    expect(scripts.test.startsWith(`${step} java chromium && `)).toBe(true);
    expect(readFileSync(join(repoRoot, '.ci', 'run'), 'utf8')).toContain(`${step} java chromium`);
  });
});
