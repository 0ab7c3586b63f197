/**
 * Renders the nginx.conf template (repository root) into a directory nginx can run with
 * `-p <dir>/ -c <dir>/nginx.conf`: the configuration, and origin-secret.conf beside it holding the
 * secret header the proxies send (ORIGIN_HEADER), readable by its owner only.
 *
 *   ORIGIN_HEADER="X-Origin-Secret: …" npx tsx deploy/nginx.ts --out DIR --root /srv/refdata/dist \
 *     --listen 10.0.0.5:8081 [--user www-data] [--access-log PATH|off] [--error-log PATH|stderr]
 *     [--no-secret] [--listen-anywhere]
 *
 * test/system/nginx.test.ts renders through the same function, so the tested configuration is the
 * deployed one.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { BlockList, isIP } from 'node:net';
import path from 'node:path';
import { buildsRootOf } from '../contract/builds.ts';
import { parseOptions, RenderError, runAsCommand, UsageError, splitOriginHeader } from './commandLine.ts';

export { RenderError };

export const templateFile = path.resolve(import.meta.dirname, '..', 'nginx.conf');
export const secretFileName = 'origin-secret.conf';

export interface NginxOptions {
  /** Absolute path of the dist link (or a build directory). */
  readonly root: string;
  /** `address:port`, `[v6]:port`. */
  readonly listen: string;
  /** The proxies' ORIGIN_HEADER, `Name: value`; undefined serves everyone (--no-secret). */
  readonly originHeader: string | undefined;
  /** Worker processes' user when nginx starts as root; ignored otherwise. */
  readonly user?: string;
  readonly accessLog?: string;
  readonly errorLog?: string;
  /** Allows an address outside loopback and the private ranges. */
  readonly listenAnywhere?: boolean;
}

/** Loopback, RFC 1918, shared address space (RFC 6598, e.g. a VPN), IPv6 unique local. */
const privateRanges = new BlockList();
privateRanges.addSubnet('127.0.0.0', 8, 'ipv4');
privateRanges.addSubnet('10.0.0.0', 8, 'ipv4');
privateRanges.addSubnet('172.16.0.0', 12, 'ipv4');
privateRanges.addSubnet('192.168.0.0', 16, 'ipv4');
privateRanges.addSubnet('100.64.0.0', 10, 'ipv4');
privateRanges.addAddress('::1', 'ipv6');
privateRanges.addSubnet('fc00::', 7, 'ipv6');

function checkListen(listen: string, anywhere: boolean): void {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(listen);
  const address = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!match || address === undefined || isIP(address) === 0 || port < 1 || port > 65535) {
    throw new RenderError(`--listen ${JSON.stringify(listen)}: expected address:port with an explicit IP address, e.g. 127.0.0.1:8081 or [::1]:8081`);
  }
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (!anywhere && !privateRanges.check(address, family)) {
    throw new RenderError(
      `--listen ${listen}: not a loopback or private address. The origin serves every body without a token check; ` +
        'listen where only the proxies can reach it, or pass --listen-anywhere if a firewall already ensures that',
    );
  }
}

/** A value nginx reads as one plain token: no quotes, spaces, `;`, braces or `$` variables. */
function checkToken(name: string, value: string): void {
  if (!/^[A-Za-z0-9_./@:+[\]-]+$/.test(value)) throw new RenderError(`${name} ${JSON.stringify(value)}: use letters, digits and _ . / @ : + - [ ] only`);
}

/** `$http_x_origin_secret` for `X-Origin-Secret`, as nginx names request header variables. */
function headerVariable(name: string): string {
  return `$http_${name.toLowerCase().replaceAll('-', '_')}`;
}

/**
 * The map nginx.conf includes. A case-sensitive regular expression, not a plain string: nginx's map
 * matches plain strings ignoring case, which would make a secret of mixed case easier to guess.
 */
export function renderSecretMap(originHeader: string | undefined): string {
  if (originHeader === undefined) {
    return [
      '# Rendered with --no-secret: every request is served. Only for an origin nothing but this',
      '# machine can reach.',
      'map $uri $origin_secret_ok {',
      '    default 1;',
      '}',
      '',
    ].join('\n');
  }
  const [name, value] = splitOriginHeader(originHeader);
  const pattern = value.replace(/[.+]/g, (character) => `\\${character}`);
  return [
    '# The origin secret (deploy/nginx.ts, from ORIGIN_HEADER). Keep this file 0600; never commit it.',
    `map ${headerVariable(name)} $origin_secret_ok {`,
    '    default 0;',
    `    "~^${pattern}$" 1;`,
    '}',
    '',
  ].join('\n');
}

export async function renderNginxConfig(options: NginxOptions): Promise<string> {
  if (!path.isAbsolute(options.root)) throw new RenderError(`--root ${JSON.stringify(options.root)}: give an absolute path (the dist link)`);
  checkListen(options.listen, options.listenAnywhere ?? false);
  const values: Record<string, string> = {
    ROOT: options.root,
    // Where the generator keeps the builds behind the dist link, served as /builds/.
    BUILDS: buildsRootOf(options.root),
    LISTEN: options.listen,
    USER: options.user ?? 'www-data',
    ACCESS_LOG: options.accessLog ?? '/dev/stdout',
    ERROR_LOG: options.errorLog ?? 'stderr',
  };
  for (const [name, value] of Object.entries(values)) checkToken(name, value);
  const template = await readFile(templateFile, 'utf8');
  const rendered = template.replace(/@([A-Z_]+)@/g, (placeholder, name: string) => {
    const value = values[name];
    if (value === undefined) throw new RenderError(`${templateFile} has a placeholder ${placeholder} this renderer does not know`);
    return value;
  });
  return `# Rendered from ${path.basename(templateFile)} by deploy/nginx.ts: edit the template, not this file.\n${rendered}`;
}

/** Writes `<outDir>/nginx.conf` and `<outDir>/origin-secret.conf` (0600); returns the configuration's path. */
export async function writeNginxConfig(outDir: string, options: NginxOptions): Promise<string> {
  const config = await renderNginxConfig(options);
  const secretMap = renderSecretMap(options.originHeader);
  await mkdir(outDir, { recursive: true });
  const secretFile = path.join(outDir, secretFileName);
  await writeFile(secretFile, secretMap, { mode: 0o600 });
  await chmod(secretFile, 0o600); // writeFile's mode applies only to a new file
  const configFile = path.join(outDir, 'nginx.conf');
  await writeFile(configFile, config);
  return configFile;
}

const defaults = { listen: '127.0.0.1:8081', user: 'www-data', accessLog: '/dev/stdout', errorLog: 'stderr' } as const;

const usage = `usage: ORIGIN_HEADER="X-Origin-Secret: …" npx tsx deploy/nginx.ts --out DIR --root PATH [options]

Writes DIR/nginx.conf, rendered from the repository's nginx.conf, and DIR/${secretFileName} (0600)
holding the secret header the proxies send (ORIGIN_HEADER).

  --out DIR                where the configuration is written (required)
  --root PATH              the dist link nginx serves (required)
  --listen ADDR:PORT       a loopback or private address (default ${defaults.listen})
  --user NAME              worker processes' user when nginx starts as root (default ${defaults.user})
  --access-log PATH|off    (default ${defaults.accessLog})
  --error-log PATH|stderr  (default ${defaults.errorLog})
  --no-secret              serve every request, without ORIGIN_HEADER: a loopback-only trial
  --listen-anywhere        allow any --listen address, where a firewall already keeps others out
  -h, --help               print this and exit
`;

function parseCommandLine(args: readonly string[]) {
  return parseOptions(args, {
    out: { type: 'string' },
    root: { type: 'string' },
    listen: { type: 'string', default: defaults.listen },
    user: { type: 'string', default: defaults.user },
    'access-log': { type: 'string', default: defaults.accessLog },
    'error-log': { type: 'string', default: defaults.errorLog },
    'no-secret': { type: 'boolean', default: false },
    'listen-anywhere': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
}

async function main(args: readonly string[]): Promise<void> {
  const values = parseCommandLine(args);
  if (values.help) {
    process.stdout.write(usage);
    return;
  }
  const missing = [...(values.out ? [] : ['--out DIR (where nginx.conf is written)']), ...(values.root ? [] : ['--root PATH (the dist link nginx serves)'])];
  if (!values.out || !values.root) throw new UsageError(`missing ${missing.join(' and ')}`);
  const originHeader = process.env.ORIGIN_HEADER || undefined;
  if (originHeader === undefined && !values['no-secret']) {
    throw new RenderError('ORIGIN_HEADER is not set: give it the value the proxies get ("X-Origin-Secret: …"), or pass --no-secret for a loopback-only trial');
  }
  if (originHeader !== undefined && values['no-secret']) throw new RenderError('ORIGIN_HEADER is set and --no-secret given: choose one');
  const configFile = await writeNginxConfig(path.resolve(values.out), {
    root: path.resolve(values.root),
    listen: values.listen,
    originHeader,
    user: values.user,
    accessLog: values['access-log'],
    errorLog: values['error-log'],
    listenAnywhere: values['listen-anywhere'],
  });
  const prefix = `${path.dirname(configFile)}/`;
  console.log(`wrote ${configFile} and ${path.join(prefix, secretFileName)} (0600)`);
  console.log(`check:  nginx -t -p ${prefix} -c ${configFile}`);
  console.log(`start:  nginx -p ${prefix} -c ${configFile}`);
}

runAsCommand(import.meta.url, 'deploy/nginx.ts', usage, main);
