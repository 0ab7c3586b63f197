/**
 * The shared cache of the scale-out chain on loopback: a real varnishd (deploy/varnish.vcl rendered
 * by deploy/varnish.ts) in the foreground in a temporary directory of its own, in front of the
 * nginx that daemon.ts starts.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { writeVarnishConfig } from '../../deploy/varnish.ts';
import { findProgram, freePort } from './programs.ts';
import { rawRequest, startDaemon, type Daemon } from './daemon.ts';
import { tempDir } from './service.ts';

export const varnishdBinary = findProgram('varnishd', ['/usr/sbin/varnishd', '/usr/local/sbin/varnishd']);
const varnishadmBinary = findProgram('varnishadm', ['/usr/bin/varnishadm']);

export interface RunningVarnish extends Daemon {
  /** varnishd's view of the origin: true once its probe has found nginx up, false once down. */
  originHealthy(): boolean;
}

/**
 * varnishd with the rendered VCL, in front of `origin` (`127.0.0.1:<port>`), its working directory
 * (-n) a temporary one so that nothing is shared with a system instance. `-j none`: as root (CI) the
 * default jail would run the cache as the varnish user, who cannot read the 0700 temporary directories.
 */
export async function startVarnish(origin: string, originHeader: string, secretHeaders: Record<string, string>): Promise<RunningVarnish> {
  if (!varnishdBinary) throw new Error('varnishd is not installed');
  const port = await freePort();
  const workDir = await tempDir('refdata-varnish-');
  const vcl = await writeVarnishConfig(path.join(workDir, 'varnish.vcl'), { origin, originHeader });
  const args = ['-F', '-j', 'none', '-n', workDir, '-a', `127.0.0.1:${port}`, '-T', '127.0.0.1:0', '-f', vcl, '-s', 'malloc,64m'];
  const answers = async () => (await rawRequest(port, '/manifest.json', secretHeaders)).status === 200;
  const daemon = await startDaemon({ name: 'varnishd', binary: varnishdBinary, args, port, ready: answers });
  const originHealthy = (): boolean => {
    if (!varnishadmBinary) throw new Error('varnishadm is not installed (it comes with varnish)');
    const listing = execFileSync(varnishadmBinary, ['-n', workDir, 'backend.list'], { encoding: 'utf8' });
    // "boot.origin   probe   0/3   healthy" (7.1): the line of the one backend.
    return /\borigin\b.*\bhealthy\b/.test(listing) && !/\borigin\b.*\bsick\b/.test(listing);
  };
  return { ...daemon, originHealthy };
}

/** Resolves once `condition` holds; fails naming `what` after 20 s (both cores may be busy with other tests). */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
