/**
 * The container image (Containerfile), built and run with podman as docs/deploying.md builds and
 * runs it, over the fixture data (`--build-arg DATA=test/fixtures/data`) instead of the real data
 * (40 s and 500 MB more, for the same image). The base is a Node 20 image made on the machine
 * (test/support/podman.ts): no registry is reachable to pull the official one.
 *
 * Checked: the image holds no key and refuses to start without one; the baked build answers
 * lookups through a published port with the key from the environment; every process runs as uid
 * 1000 and cannot write the build; the HEALTHCHECK passes; `podman stop` drains (503 on /readyz,
 * lookups still answered) and the service exits 0 well before podman would kill it; a build made
 * outside, mounted over the baked one, is served with keys from a mounted file (the container
 * read-only and without capabilities), and a new build there is followed without a restart.
 *
 * Without podman, runc or mmdebstrap, or not as root, this file skips loudly, except under CI
 * (process.env.CI), where it fails: .ci/run installs them and runs as root.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../../generator/build.ts';
import { rawRequest, type RawResponse } from '../support/daemon.ts';
import { freePort } from '../support/programs.ts';
import {
  containerName,
  limitOptions,
  mmdebstrapBinary,
  nodeBaseImage,
  podman,
  podmanBinary,
  removeStale,
  runcBinary,
  runPodman,
  testImage,
} from '../support/podman.ts';
import { fixtureData, repoRoot, tempDir, testKey } from '../support/service.ts';
import { reportMissing } from '../support/tools.ts';

const file = 'test/system/container.test.ts';
const missing = [!podmanBinary && 'podman', !runcBinary && 'runc', !mmdebstrapBinary && 'mmdebstrap'].filter((name) => name !== false);
const asRoot = process.getuid?.() === 0;
if (missing.length > 0) {
  reportMissing(
    file,
    missing.join(', '),
    `${missing.join(', ')} not installed: apt-get install -y podman runc mmdebstrap`,
    'The container image (Containerfile) is',
  );
} else if (!asRoot) {
  reportMissing(file, 'podman', 'the test runs podman as root, as CI does: run it as root', 'The container image (Containerfile) is');
}

const lookup = '/financemanagement/api/currency/getbycode?code=TRY';
const missingLookup = '/financemanagement/api/currency/getbycode?code=XX1';
const bearer = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` });
/** The proxy's default: how long it answers /readyz 503 on SIGTERM before it closes its listener. */
const shutdownDelayMs = 3_000;
/** `podman stop --time`: how long podman waits after SIGTERM before it sends SIGKILL. */
const stopTimeoutSeconds = 30;

interface Envelope {
  readonly header: { readonly globalId: string; readonly isSuccess: boolean; readonly message: string | null };
  readonly body: unknown;
}
const envelopeOf = (response: RawResponse): Envelope => JSON.parse(response.body.toString()) as Envelope;

interface StartedContainer {
  readonly name: string;
  /** The loopback port published to the container's 8080. */
  readonly port: number;
  /** What the service wrote, stdout and stderr. */
  logs(): Promise<string>;
}

const started: string[] = [];

/** `podman run -d` of the test image, published on a free loopback port; resolves once /readyz answers 200. */
async function runService(purpose: string, options: readonly string[], env: NodeJS.ProcessEnv): Promise<StartedContainer> {
  const name = containerName(purpose);
  const port = await freePort();
  started.push(name);
  await podman(['run', '--detach', '--name', name, ...limitOptions(), '--publish', `127.0.0.1:${port}:8080`, ...options, testImage], { env });
  const logs = async (): Promise<string> => {
    const { stdout, stderr } = await runPodman(['logs', name]);
    return stdout + stderr;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await rawRequest(port, '/readyz').catch(() => undefined);
    if (ready?.status === 200) return { name, port, logs };
    const state = await podman(['inspect', '--format', '{{.State.Status}}', name]);
    if (state !== 'running' || Date.now() > deadline) {
      throw new Error(`the container ${name} is ${state}, /readyz answered ${ready?.status ?? 'nothing'}:\n${await logs()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The build a running service serves, as /readyz names it. */
async function servedBuild(port: number): Promise<string | undefined> {
  const ready = await rawRequest(port, '/readyz').catch(() => undefined);
  return ready?.status === 200 ? (envelopeOf(ready).body as { buildId?: string }).buildId : undefined;
}

describe.skipIf(missing.length > 0 || !asRoot)('the container image (Containerfile)', () => {
  beforeAll(async () => {
    await removeStale();
    const base = await nodeBaseImage();
    // --layers=false keeps no intermediate image behind; a user's build keeps them as a cache.
    const args = ['--layers=false', '--format', 'docker', ...limitOptions(), '--build-arg', `BASE=${base}`, '--build-arg', 'DATA=test/fixtures/data'];
    await podman(['build', ...args, '--tag', testImage, '--file', path.join(repoRoot, 'Containerfile'), repoRoot], { timeoutMs: 300_000 });
  }, 600_000);

  afterAll(async () => {
    if (started.length > 0) await runPodman(['rm', '--force', '--time', '0', ...started]);
    await runPodman(['rmi', '--force', testImage]);
  }, 60_000);

  it('runs the proxy bundle as uid 1000, holds no key, publishes 8080, stops on SIGTERM and checks /readyz', async () => {
    // Podman's inspect keeps the health check beside the image's configuration, not in it.
    const [image] = JSON.parse(await podman(['image', 'inspect', testImage])) as [
      {
        Config: { User: string; Env: string[]; ExposedPorts: Record<string, unknown>; StopSignal: string; Cmd: string[] };
        Healthcheck?: { Test: string[] };
      },
    ];
    const { User, Env, ExposedPorts, StopSignal, Cmd } = image.Config;
    expect(User).toBe('1000:1000');
    // The bundle itself, as the systemd unit runs it: `npm start` would build first (prestart).
    expect(Cmd).toEqual(['node', '.proxy-build/main.mjs']);
    const names = Env.map((variable) => variable.slice(0, variable.indexOf('=')));
    expect(names).toEqual(expect.arrayContaining(['NODE_ENV', 'HOST', 'PORT', 'DIST_DIR']));
    expect(Env).toContain('NODE_ENV=production');
    for (const secret of ['API_KEYS', 'API_KEYS_FILE', 'JWT_SECRET', 'JWT_PUBLIC_KEY', 'JWKS_URL', 'ORIGIN_HEADER', 'AWS_SECRET_ACCESS_KEY']) {
      expect(names).not.toContain(secret);
    }
    expect(Object.keys(ExposedPorts)).toEqual(['8080/tcp']);
    expect(StopSignal).toBe('SIGTERM');
    expect(image.Healthcheck?.Test.join(' ')).toContain('/readyz');
  });

  it('refuses to start without a key: production makes no development key', async () => {
    const { code, stdout, stderr } = await runPodman(['run', '--rm', ...limitOptions(), testImage]);
    expect(code).toBe(1);
    expect(stdout + stderr).toContain('cannot start: invalid configuration');
    expect(stdout + stderr).toContain('no way to accept tokens is configured');
  });

  describe('with the baked build and a key from the environment', () => {
    let service: StartedContainer;
    beforeAll(async () => {
      // `-e API_KEYS` passes the variable on from podman's own environment, off the command line.
      service = await runService('baked', ['--env', 'API_KEYS'], { API_KEYS: testKey });
    }, 60_000);

    it('answers a lookup with the envelope, a missing record with 404 and its X-Error-Code, and no token with 401', async () => {
      const found = await rawRequest(service.port, lookup, bearer(testKey));
      expect(found.status).toBe(200);
      expect(found.headers['content-type']).toMatch(/^application\/json/);
      const envelope = envelopeOf(found);
      expect(envelope.header).toMatchObject({ isSuccess: true, message: null });
      expect(envelope.body).toMatchObject({ code: 'TRY', name: 'Turkish Lira' });

      const notFound = await rawRequest(service.port, missingLookup, bearer(testKey));
      expect(notFound.status).toBe(404);
      expect(notFound.headers['x-error-code']).toBe('ERR_NOT_FOUND');
      expect(envelopeOf(notFound)).toMatchObject({ header: { isSuccess: false, message: 'No currency has code "XX1".' }, body: null });

      expect((await rawRequest(service.port, lookup)).status).toBe(401);
    });

    it('runs every process as uid 1000, which cannot write the build it serves', async () => {
      const statuses = await podman(['exec', service.name, 'sh', '-c', 'grep -H "^Uid:" /proc/[0-9]*/status']);
      const uids = new Map(
        statuses.split('\n').map((line) => {
          const [, pid, ids] = /^\/proc\/(\d+)\/status:Uid:\s+(.*)$/.exec(line) ?? [];
          return [Number(pid), ids?.split(/\s+/)];
        }),
      );
      // The primary (pid 1) and its workers, one per core; real, effective, saved and file system uid.
      expect(uids.get(1)).toEqual(['1000', '1000', '1000', '1000']);
      expect(uids.size).toBeGreaterThanOrEqual(3);
      for (const [pid, ids] of uids) expect(ids, `pid ${pid}`).toEqual(['1000', '1000', '1000', '1000']);

      const write = await runPodman(['exec', service.name, 'touch', '/var/lib/refdata/dist/manifest.json']);
      expect(write.code).not.toBe(0);
      expect(write.stderr).toContain('Permission denied');
    });

    it("is healthy by the image's HEALTHCHECK", async () => {
      const check = await runPodman(['healthcheck', 'run', service.name]);
      expect(check.code, check.stdout + check.stderr).toBe(0);
    });

    it('on `podman stop` answers /readyz 503 while still answering lookups, then exits 0 within the drain time', async () => {
      const stopping = Date.now();
      const stop = podman(['stop', '--time', String(stopTimeoutSeconds), service.name], { timeoutMs: (stopTimeoutSeconds + 10) * 1_000 });
      const deadline = Date.now() + shutdownDelayMs;
      let readyz = await rawRequest(service.port, '/readyz');
      while (readyz.status === 200 && Date.now() < deadline) readyz = await rawRequest(service.port, '/readyz');
      expect(readyz.status).toBe(503);
      expect((await rawRequest(service.port, lookup, bearer(testKey))).status).toBe(200);

      await stop;
      const stoppedAfterMs = Date.now() - stopping;
      // The drain, then the close (nothing is in flight): far from podman's SIGKILL at 30 s.
      expect(stoppedAfterMs).toBeGreaterThanOrEqual(shutdownDelayMs);
      expect(stoppedAfterMs).toBeLessThan(shutdownDelayMs + 7_000);
      expect(await podman(['inspect', '--format', '{{.State.ExitCode}}', service.name])).toBe('0');
      const logs = await service.logs();
      expect(logs).toMatch(/"event":"draining","signal":"SIGTERM","delayMs":3000/);
      expect(logs).toContain('"event":"stopping"');
    }, 60_000);
  });

  describe('read-only, without capabilities, with a build made outside mounted over the baked one and keys from a mounted file', () => {
    const fileKey = 'file-key-0123456789abcdef';
    let buildsDir: string;
    let firstBuild: string;
    let service: StartedContainer;
    beforeAll(async () => {
      // As `DIST_DIR=<folder>/dist npm run build` writes it: the dist link and the builds beside it.
      buildsDir = await tempDir('refdata-builds-');
      firstBuild = (await buildDist({ dataDir: fixtureData, distDir: path.join(buildsDir, 'dist') })).buildId;
      // The service (uid 1000) reads the mounted folder and key file: both readable by others here.
      await chmod(buildsDir, 0o755);
      const keysFile = path.join(await tempDir(), 'api-keys');
      await writeFile(keysFile, `# one key a line\n${fileKey}\n`, { mode: 0o644 });
      const mounts = ['--volume', `${buildsDir}:/var/lib/refdata:ro`, '--volume', `${keysFile}:/run/secrets/api-keys:ro`];
      // Hardened as docs/deploying.md suggests: nothing of the image writable, no capabilities, no setuid.
      const hardening = ['--read-only', '--cap-drop', 'all', '--security-opt', 'no-new-privileges'];
      service = await runService('mounted', [...mounts, ...hardening, '--env', 'API_KEYS_FILE=/run/secrets/api-keys'], {});
    }, 60_000);

    it('serves the mounted build with the keys of the mounted file', async () => {
      expect(await servedBuild(service.port)).toBe(firstBuild);
      const found = await rawRequest(service.port, lookup, bearer(fileKey));
      expect(found.status).toBe(200);
      expect(envelopeOf(found).body).toMatchObject({ code: 'TRY' });
      expect((await rawRequest(service.port, lookup, bearer(testKey))).status).toBe(401);
    });

    it('follows a new build written there, without a restart', async () => {
      const next = await buildDist({ dataDir: fixtureData, distDir: path.join(buildsDir, 'dist'), force: true });
      expect(next.buildId).not.toBe(firstBuild);
      const deadline = Date.now() + 10_000;
      while ((await servedBuild(service.port)) !== next.buildId && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await servedBuild(service.port)).toBe(next.buildId);
      expect(await readFile(path.join(buildsDir, 'dist', 'build.json'), 'utf8')).toContain(next.buildId);
    });
  });
});
