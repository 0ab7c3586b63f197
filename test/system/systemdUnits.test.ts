/**
 * The systemd units in deploy/systemd/, as systemd reads them and as the documents install them.
 *
 * `systemd-analyze verify` checks each unit in a root made for the test (`--root`): it holds
 * systemd's own units, which ours are ordered after and wanted by, and the programs ours may run at
 * the paths Debian 12 installs them, so that verify finds them there and nowhere else. Verify needs
 * no running systemd (the tests run as root in containers without one), but it only warns about a
 * directive or a value it does not understand and still exits 0: here anything it says is a
 * failure, and a test shows that a misspelt directive, a misspelt section and a program that is not
 * installed are each reported. Verify does not look up users or the files a unit reads: what
 * matters of each unit is asserted from its text (the proxy runs the bundle `npm start` runs, its
 * secrets come from its environment file, nothing runs as root but nginx's master).
 *
 * Without systemd-analyze the systemd part skips loudly, except under CI (process.env.CI), where it
 * fails: .ci/run installs systemd.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildsRootOf } from '../../contract/builds.ts';
import { settingNames } from '../../proxy/config/config.ts';
import { findProgram } from '../support/programs.ts';
import { repoRoot, tempDir } from '../support/service.ts';
import { reportMissing } from '../support/tools.ts';

const unitsDir = path.join(repoRoot, 'deploy', 'systemd');
const unitFiles = readdirSync(unitsDir)
  .filter((name) => /\.(service|socket|timer|path)$/.test(name))
  .sort();
const unitText = (name: string): string => readFileSync(path.join(unitsDir, name), 'utf8');

/** The programs a unit may run, where Debian 12 installs them: node (Debian's nodejs and NodeSource's), nginx, procps' kill. */
const installedPrograms = ['/usr/bin/node', '/usr/sbin/nginx', '/bin/kill'];

/** A unit file read as systemd reads it: per section, each directive with its value, in order (a directive may repeat). */
type Unit = ReadonlyMap<string, readonly (readonly [string, string])[]>;

function parseUnit(text: string): Unit {
  const sections = new Map<string, [string, string][]>();
  let current: [string, string][] | undefined;
  for (const line of text.split('\n').map((raw) => raw.trim())) {
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line)?.[1];
    if (section !== undefined) {
      current = sections.get(section) ?? [];
      sections.set(section, current);
      continue;
    }
    const equals = line.indexOf('=');
    if (current === undefined || equals < 0) throw new Error(`not a directive in a section: ${line}`);
    current.push([line.slice(0, equals).trim(), line.slice(equals + 1).trim()]);
  }
  return sections;
}

/** Every value of a directive, in order. */
const all = (unit: Unit, section: string, key: string): string[] => (unit.get(section) ?? []).filter(([name]) => name === key).map(([, value]) => value);
/** The value systemd uses for a directive set once: the last. */
const one = (unit: Unit, section: string, key: string): string | undefined => all(unit, section, key).at(-1);

/** The variables a unit sets with Environment= (none of ours quotes a value). */
function environmentOf(unit: Unit): Map<string, string> {
  const pairs = all(unit, 'Service', 'Environment').flatMap((line) => line.split(/\s+/));
  return new Map(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

const packageScripts = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** What an npm script runs after `node`, e.g. `.proxy-build/main.mjs` for `exec node .proxy-build/main.mjs`. */
function nodeArguments(script: string): string {
  const command = packageScripts[script] ?? '';
  const after = /(?:^|\s)node (.+)$/.exec(command)?.[1];
  if (after === undefined) throw new Error(`npm's ${script} script does not run node: ${command}`);
  return after;
}

const proxy = parseUnit(unitText('refdata-proxy.service'));
const build = parseUnit(unitText('refdata-build.service'));
const origin = parseUnit(unitText('refdata-origin.service'));

describe('the units under deploy/systemd/', () => {
  it('are the proxy, the build and the origin, each saying in its header what it is for and how to install it', () => {
    expect(unitFiles).toEqual(['refdata-build.service', 'refdata-origin.service', 'refdata-proxy.service']);
    for (const name of unitFiles) {
      const header = unitText(name).split('\n[')[0] ?? '';
      expect(header, name).toMatch(/^# \S/);
      expect(header, name).toContain(`install -m 0644 deploy/systemd/${name} /etc/systemd/system/`);
      expect(header, name).toContain('systemctl daemon-reload');
    }
  });

  it('sandbox every service: the file system read-only but for the paths named, no privileges gained, a /tmp and /dev of its own, no home directories', () => {
    const sandbox = { ProtectSystem: 'strict', NoNewPrivileges: 'yes', PrivateTmp: 'yes', PrivateDevices: 'yes', ProtectHome: 'yes' };
    for (const [name, unit] of Object.entries({ proxy, build, origin })) {
      for (const [key, value] of Object.entries(sandbox)) expect(one(unit, 'Service', key), `${name}: ${key}`).toBe(value);
    }
  });

  it('run the proxy and the build as the refdata user with no capabilities; only nginx starts as root, its master keeping what it needs to hand its workers to www-data', () => {
    for (const unit of [proxy, build]) {
      expect(one(unit, 'Service', 'User')).toBe('refdata');
      expect(one(unit, 'Service', 'CapabilityBoundingSet')).toBe('');
    }
    expect(one(origin, 'Service', 'User')).toBeUndefined();
    expect(one(origin, 'Service', 'CapabilityBoundingSet')?.split(/\s+/).sort()).toEqual(['CAP_CHOWN', 'CAP_NET_BIND_SERVICE', 'CAP_SETGID', 'CAP_SETUID']);
  });

  it('run the proxy as `npm start` runs it: node itself on the bundle `npm run build:proxy` writes, in production', () => {
    const bundle = nodeArguments('start');
    // esbuild writes proxy/main.ts as <outdir>/main.mjs, its lazily loaded parts as chunks beside it.
    const script = packageScripts['build:proxy'] ?? '';
    expect(script).toMatch(/^esbuild proxy\/main\.ts /);
    for (const flag of [`--outdir=${path.posix.dirname(bundle)}`, '--entry-names=[name]', '--out-extension:.js=.mjs']) expect(script).toContain(flag);
    expect(path.posix.basename(bundle)).toBe('main.mjs');
    expect(all(proxy, 'Service', 'ExecStart')).toEqual([`/usr/bin/node ${bundle}`]);
    expect(one(proxy, 'Service', 'WorkingDirectory')).toBe('/srv/refdata');
    expect(environmentOf(proxy).get('NODE_ENV')).toBe('production');
  });

  it('keep the proxy’s secrets out of the unit: its settings are the proxy’s, its keys come from /etc/refdata/proxy.env, which must be there', () => {
    expect(all(proxy, 'Service', 'EnvironmentFile')).toEqual(['/etc/refdata/proxy.env']);
    const secrets = ['API_KEYS', 'JWT_SECRET', 'ORIGIN_HEADER', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'];
    for (const unit of [proxy, build]) {
      for (const name of environmentOf(unit).keys()) {
        expect([...settingNames, 'KEEP_BUILDS'], name).toContain(name);
        expect(secrets, name).not.toContain(name);
      }
    }
  });

  it('restart the proxy when its primary gives up (exit 1), reload it with SIGHUP, and stop it through its primary alone so that workers drain', () => {
    expect(one(proxy, 'Service', 'Restart')).toBe('on-failure');
    expect(all(proxy, 'Service', 'ExecReload')).toEqual(['/bin/kill -HUP $MAINPID']);
    expect(one(proxy, 'Service', 'KillMode')).toBe('mixed');
    expect(one(proxy, 'Install', 'WantedBy')).toBe('multi-user.target');
  });

  it('give the proxy its origin copy in its own cache directory, and the leases beside the builds as the only other path it writes', () => {
    const settings = environmentOf(proxy);
    expect(settings.get('ORIGIN_CACHE_DIR')).toBe(`/var/cache/${one(proxy, 'Service', 'CacheDirectory')}`);
    expect(all(proxy, 'Service', 'ReadWritePaths')).toEqual([`-${buildsRootOf(settings.get('DIST_DIR') ?? '')}`]);
  });

  it('build what `npm run build` builds, into the dist the proxy serves, as its user, readable by nginx’s workers', () => {
    expect(all(build, 'Service', 'ExecStart')).toEqual([`/usr/bin/node ${nodeArguments('build')}`]);
    expect(one(build, 'Service', 'Type')).toBe('oneshot');
    const distDir = environmentOf(build).get('DIST_DIR');
    expect(distDir).toBe(environmentOf(proxy).get('DIST_DIR'));
    expect(one(build, 'Service', 'WorkingDirectory')).toBe(one(proxy, 'Service', 'WorkingDirectory'));
    // The dist link is renamed in its parent directory; the builds are written beside it.
    expect(all(build, 'Service', 'ReadWritePaths')).toEqual([path.dirname(distDir ?? '')]);
    expect(one(build, 'Service', 'UMask')).toBe('0022');
  });

  it('run nginx on the configuration deploy/nginx.ts renders into its state directory, checked before every start and reload, stopped gracefully', () => {
    const prefix = `/var/lib/${one(origin, 'Service', 'StateDirectory')}/`;
    const nginx = `/usr/sbin/nginx -p ${prefix} -c ${prefix}nginx.conf -e stderr`;
    expect(all(origin, 'Service', 'ExecStart')).toEqual([`${nginx} -g "daemon off;"`]);
    expect(all(origin, 'Service', 'ExecStartPre')).toEqual([nginx.replace(' -p', ' -t -q -p')]);
    expect(all(origin, 'Service', 'ExecReload')).toEqual([nginx.replace(' -p', ' -t -q -p'), '/bin/kill -HUP $MAINPID']);
    expect(one(origin, 'Service', 'KillSignal')).toBe('SIGQUIT');
  });

  it('come with an example environment file that names only settings the proxy reads', () => {
    const named = [...readFileSync(path.join(unitsDir, 'proxy.env.example'), 'utf8').matchAll(/^#?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
    expect(named).toContain('API_KEYS_FILE');
    for (const name of named) expect(settingNames, name).toContain(name);
  });

  it('are each installed by the documents, which name no file of deploy/systemd/ that is not there', () => {
    const documents = ['README.md', ...readdirSync(path.join(repoRoot, 'docs')).map((name) => path.join('docs', name))].filter((file) => file.endsWith('.md'));
    const named = new Set(
      documents.flatMap((file) => [...readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/deploy\/systemd\/([\w.-]+)/g)].map((match) => match[1])),
    );
    for (const name of unitFiles) expect([...named], name).toContain(name);
    for (const name of named) expect(existsSync(path.join(unitsDir, name ?? '')), `deploy/systemd/${name}`).toBe(true);
  });
});

const systemdAnalyze = findProgram('systemd-analyze', ['/usr/bin/systemd-analyze', '/bin/systemd-analyze']);
/** systemd's own units, where the systemd package installs them (/lib is /usr/lib on Debian 12). */
const systemUnitsDir = ['/usr/lib/systemd/system', '/lib/systemd/system'].find((dir) => existsSync(path.join(dir, 'multi-user.target')));

if (!systemdAnalyze || !systemUnitsDir) {
  reportMissing(
    'test/system/systemdUnits.test.ts',
    'systemd-analyze',
    'systemd-analyze or systemd’s own units are not installed: apt-get install -y systemd',
    'systemd’s own reading of the units in deploy/systemd/ is',
  );
}

describe.skipIf(!systemdAnalyze || !systemUnitsDir)('systemd-analyze on the units', () => {
  let root: string;
  const unitDir = (): string => path.join(root, 'etc', 'systemd', 'system');

  /** What systemd-analyze says about `units` in the test's root, as lines; an exit status other than 0 is said too. */
  function analyze(command: 'verify' | 'security', units: readonly string[]): string[] {
    const options = command === 'security' ? ['--offline=yes'] : [];
    const result = spawnSync(systemdAnalyze as string, [command, `--root=${root}`, ...options, ...units], {
      encoding: 'utf8',
      env: { ...process.env, SYSTEMD_COLORS: '0', SYSTEMD_PAGER: '' },
    });
    const said = `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.trim() !== '');
    return result.status === 0 ? said : [...said, `exit status ${result.status}`];
  }

  /** Writes a unit into the root and verifies it alone. */
  async function verifyText(name: string, text: string): Promise<string[]> {
    await writeFile(path.join(unitDir(), name), text);
    return analyze('verify', [name]);
  }

  beforeAll(async () => {
    root = await tempDir('refdata-systemd-');
    await cp(systemUnitsDir as string, path.join(root, 'usr', 'lib', 'systemd', 'system'), { recursive: true });
    await mkdir(unitDir(), { recursive: true });
    for (const program of installedPrograms) {
      await mkdir(path.join(root, path.dirname(program)), { recursive: true });
      await writeFile(path.join(root, program), '#!/bin/sh\nexit 0\n');
      await chmod(path.join(root, program), 0o755);
    }
    for (const name of unitFiles) await cp(path.join(unitsDir, name), path.join(unitDir(), name));
  });

  it.each(unitFiles)('verify has nothing to say about %s', (name) => {
    expect(analyze('verify', [name])).toEqual([]);
  });

  it('verify reports a misspelt directive, a misspelt section and a program not installed', async () => {
    const text = unitText('refdata-proxy.service');
    const broken = (from: string, to: string): string => {
      expect(text, from).toContain(from);
      return text.replace(from, to);
    };
    expect((await verifyText('misspelt-directive.service', broken('ProtectSystem=strict', 'ProtectSytem=strict'))).join('\n')).toContain(
      "Unknown key 'ProtectSytem' in section [Service]",
    );
    expect((await verifyText('misspelt-section.service', broken('[Service]', '[Servce]'))).join('\n')).toContain("Unknown section 'Servce'");
    expect((await verifyText('other-program.service', broken('ExecStart=/usr/bin/node', 'ExecStart=/usr/bin/nodejs'))).join('\n')).toContain(
      'Command /usr/bin/nodejs is not executable',
    );
  });

  it.each(unitFiles)('%s has an overall exposure of at most 3.0 on systemd’s own scale (0 to 10)', (name) => {
    const said = analyze('security', [name]);
    const exposure = said.map((line) => /Overall exposure level for \S+: ([\d.]+)/.exec(line)?.[1]).find((level) => level !== undefined);
    expect(exposure, said.join('\n')).toBeDefined();
    expect(Number(exposure)).toBeLessThanOrEqual(3);
  });
});
