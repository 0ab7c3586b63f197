/**
 * What the deploy scripts (nginx.ts, varnish.ts, haproxy.ts) share: the error a refused value is,
 * reading the options, and running as a command with one line for what was wrong.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ServiceError } from '../contract/errors.ts';
import { apiKeyPattern } from '../proxy/config/settingFields.ts';

/** A value that would make a wrong or unsafe configuration: refused, naming the value and what to give. */
export class RenderError extends ServiceError {
  constructor(message: string) {
    super('ERR_RENDER', message);
  }
}

/** A command line a script cannot act on: one line saying why, then the usage, exit status 2. */
export class UsageError extends ServiceError {
  constructor(message: string) {
    super('ERR_USAGE', message);
  }
}

/** The options' values, or a UsageError for what util.parseArgs refuses (an unknown option, a missing value …). */
export function parseOptions<Options extends NonNullable<ParseArgsConfig['options']>>(args: readonly string[], options: Options) {
  try {
    return parseArgs({ args: [...args], options }).values;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code?.startsWith('ERR_PARSE_ARGS_')) throw new UsageError((error as Error).message);
    throw error;
  }
}

/**
 * Runs `main` with the command line when `moduleUrl` is the script node was started with: a
 * UsageError prints its line and the usage (exit 2), a RenderError its line after `failed` (exit 1).
 */
export function runAsCommand(
  moduleUrl: string,
  script: string,
  usage: string,
  main: (args: readonly string[]) => Promise<void>,
  failed = 'cannot render',
): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  main(process.argv.slice(2)).catch((error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${script}: ${error.message}\n\n${usage}`);
      process.exitCode = 2;
      return;
    }
    console.error(error instanceof RenderError ? `${failed}: ${error.message}` : error);
    process.exitCode = 1;
  });
}

/** `[name, value]` of ORIGIN_HEADER, as the origin (nginx) and the cache (Varnish) both require it. */
export function splitOriginHeader(originHeader: string): [string, string] {
  const colon = originHeader.indexOf(':');
  const name = originHeader.slice(0, colon).trim();
  const value = originHeader.slice(colon + 1).trim();
  if (colon < 1 || !/^[A-Za-z0-9-]+$/.test(name)) throw new RenderError('ORIGIN_HEADER must look like "X-Origin-Secret: <secret>", as the proxies get it');
  if (!apiKeyPattern.test(value) || value.length < 32) {
    throw new RenderError("ORIGIN_HEADER's secret must be at least 32 characters of A-Z a-z 0-9 - . _ ~ + / (e.g. openssl rand -hex 32)");
  }
  return [name, value];
}
