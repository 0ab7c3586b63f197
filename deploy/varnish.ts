/**
 * Renders deploy/varnish.vcl (the cache between the proxies and the nginx origin) with the origin's
 * address and the proxies' secret header, into one file written mode 0600: it holds the secret.
 *
 *   ORIGIN_HEADER="X-Origin-Secret: …" npx tsx deploy/varnish.ts --out /var/lib/refdata-cache/varnish.vcl \
 *     --origin 10.0.0.5:8081
 *
 * test/system/varnish.test.ts renders through the same function, so the tested configuration is
 * the deployed one.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { parseOptions, RenderError, runAsCommand, splitOriginHeader, UsageError } from './commandLine.ts';

export const vclTemplateFile = path.resolve(import.meta.dirname, 'varnish.vcl');

export interface VarnishOptions {
  /** nginx's `address:port` (`[v6]:port`), as its --listen. */
  readonly origin: string;
  /** The proxies' ORIGIN_HEADER, `Name: value`: forwarded to the origin, required of every request. */
  readonly originHeader: string;
}

function splitOrigin(origin: string): [host: string, port: string] {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(origin);
  const host = match?.[1] ?? match?.[2];
  const port = match?.[3];
  if (host === undefined || port === undefined || isIP(host) === 0 || Number(port) < 1 || Number(port) > 65535) {
    throw new RenderError(
      `--origin ${JSON.stringify(origin)}: expected nginx's address:port with an explicit IP address, e.g. 10.0.0.5:8081 or [fd00::5]:8081`,
    );
  }
  return [host, port];
}

export async function renderVarnishConfig(options: VarnishOptions): Promise<string> {
  const [host, port] = splitOrigin(options.origin);
  // apiKeyPattern's characters never end a VCL string ("), so the value is written as it is.
  const [secretName, secretValue] = splitOriginHeader(options.originHeader);
  const values: Record<string, string> = { ORIGIN_HOST: host, ORIGIN_PORT: port, SECRET_NAME: secretName, SECRET_VALUE: secretValue };
  const template = await readFile(vclTemplateFile, 'utf8');
  const rendered = template.replace(/@([A-Z_]+)@/g, (placeholder, name: string) => {
    const value = values[name];
    if (value === undefined) throw new RenderError(`${vclTemplateFile} has a placeholder ${placeholder} this renderer does not know`);
    return value;
  });
  return `# Rendered from deploy/varnish.vcl by deploy/varnish.ts: edit the template, not this file. Holds the secret: keep it 0600.\n${rendered}`;
}

/** Writes the rendered VCL to `file`, mode 0600; returns its path. */
export async function writeVarnishConfig(file: string, options: VarnishOptions): Promise<string> {
  const config = await renderVarnishConfig(options);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, config, { mode: 0o600 });
  await chmod(file, 0o600); // writeFile's mode applies only to a new file
  return file;
}

const usage = `usage: ORIGIN_HEADER="X-Origin-Secret: …" npx tsx deploy/varnish.ts --out FILE --origin ADDR:PORT

Writes FILE (mode 0600), deploy/varnish.vcl with nginx's address and the secret header the
proxies send (ORIGIN_HEADER) filled in.

  --out FILE          where the VCL is written (required)
  --origin ADDR:PORT  nginx's listen address (required), e.g. 10.0.0.5:8081
  -h, --help          print this and exit
`;

async function main(args: readonly string[]): Promise<void> {
  const values = parseOptions(args, { out: { type: 'string' }, origin: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    process.stdout.write(usage);
    return;
  }
  if (!values.out || !values.origin) throw new UsageError(`missing ${values.out ? '--origin ADDR:PORT' : '--out FILE'}`);
  const originHeader = process.env.ORIGIN_HEADER;
  if (!originHeader) throw new RenderError('ORIGIN_HEADER is not set: give it the value the proxies get ("X-Origin-Secret: …")');
  const file = await writeVarnishConfig(path.resolve(values.out), { origin: values.origin, originHeader });
  console.log(`wrote ${file} (0600)`);
  console.log(`check:  varnishd -C -f ${file} >/dev/null`);
}

runAsCommand(import.meta.url, 'deploy/varnish.ts', usage, main);
