/**
 * The service as a browser meets it: Debian's Chromium (no browser download), driven by
 * playwright-core, on a page of another origin and on /docs. Without Chromium this file skips
 * loudly, except under CI (process.env.CI), where it fails: .ci/run installs it.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../proxy/service.ts';
import { buildFixture, fixtureRecords, pick, startTestService, tempDir, testKey } from '../support/service.ts';
import { reportMissing } from '../support/tools.ts';

const chromiumBinary = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => existsSync(candidate));

if (!chromiumBinary) {
  reportMissing(
    'test/system/browser.test.ts',
    'Chromium',
    'Chromium is not installed (/usr/bin/chromium): apt-get install -y chromium',
    'Caching, CORS and the docs page in a browser are',
  );
}

const region = '/addressmanagement/api/region/getall';

/** test/fixtures/pages/address-form.html: an address form that types ahead with the search operations. */
const addressFormFile = path.resolve(import.meta.dirname, '../fixtures/pages/address-form.html');

/** Pages on another origin than the service's, as a web application using the API would be: an empty one, and the address form at /address-form. */
async function startOtherOrigin(): Promise<{ url: string; close: () => Promise<void> }> {
  const addressForm = await readFile(addressFormFile, 'utf8');
  const server = http.createServer((request, response) => {
    const page = request.url === '/address-form' ? addressForm : '<!doctype html><title>An address form</title>';
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((done) => server.close(() => done())) };
}

interface Fetched {
  readonly status: number;
  readonly globalId: string;
  readonly requestId: string | null;
}

/** fetch() in the page, as a script would call it; the answer's status, globalId and X-Request-Id as the script can read them. */
function fetchInPage(page: Page, url: string, headers: Record<string, string>): Promise<Fetched> {
  return page.evaluate(
    async ([target, sent]) => {
      const response = await fetch(target, { headers: sent });
      const envelope = (await response.json()) as { header: { globalId: string } };
      return { status: response.status, globalId: envelope.header.globalId, requestId: response.headers.get('X-Request-Id') };
    },
    [url, headers] as const,
  );
}

describe.skipIf(!chromiumBinary)('in Chromium', () => {
  let service: RunningService;
  let other: { url: string; close: () => Promise<void> };
  let browser: Browser;

  beforeAll(async () => {
    service = await startTestService(await buildFixture(), { API_KEYS: testKey });
    other = await startOtherOrigin();
    // As root (CI) Chromium's sandbox cannot start; the pages here are our own.
    browser = await chromium.launch({ executablePath: chromiumBinary as string, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await other?.close();
    await service?.close();
  });

  it('a request without a token, after an authorised one to the same URL, gets 401, not the cached answer', async () => {
    for (const from of ['another origin', "the service's own origin"]) {
      const page = await browser.newPage();
      try {
        await page.goto(from === 'another origin' ? other.url : `${service.running.url}/docs`);
        const url = `${service.running.url}${region}`;
        const authorised = await fetchInPage(page, url, { Authorization: `Bearer ${testKey}` });
        expect(authorised.status, from).toBe(200);
        // The same again is the browser's to reuse for a minute (private, max-age=60) …
        expect((await fetchInPage(page, url, { Authorization: `Bearer ${testKey}` })).globalId, from).toBe(authorised.globalId);
        // … but never for a request without the token, or with another.
        expect((await fetchInPage(page, url, {})).status, from).toBe(401);
        expect((await fetchInPage(page, url, { Authorization: 'Bearer not-a-key-0123456789' })).status, from).toBe(401);
      } finally {
        await page.close();
      }
    }
  });

  it('a request from another origin carrying tracing headers passes its preflight, and the script reads X-Request-Id', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(other.url);
      const sent = {
        Authorization: `Bearer ${testKey}`,
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        baggage: 'userId=alice',
        'sentry-trace': '4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1',
        'X-Request-Id': 'form-7',
      };
      const answer = await fetchInPage(page, `${service.running.url}/financemanagement/api/currency/getbycode?code=TRY`, sent);
      expect(answer.status).toBe(200);
      expect(answer.requestId).toBe('form-7');
    } finally {
      await page.close();
    }
  });

  it('an address form types ahead from another origin: Türkiye, İstanbul, Kadıköy, then Caferağa fills 34710', async () => {
    const page = await browser.newPage();
    const options = (field: string) => page.locator(`#${field}-options li`);
    try {
      await page.goto(`${other.url}address-form#api=${encodeURIComponent(service.running.url)}&key=${testKey}`);
      await page.locator('#country').pressSequentially('tü');
      await expect.poll(() => options('country').allTextContents()).toEqual(['Türkiye']);
      await options('country').first().click();

      // Typed in capitals, as a Turkish keyboard gives them.
      await page.locator('#stateProvince').pressSequentially('İS');
      await expect.poll(() => options('stateProvince').allTextContents()).toEqual(['İstanbul']);
      await options('stateProvince').first().click();

      await page.locator('#district').pressSequentially('kadı');
      await expect.poll(() => options('district').allTextContents()).toEqual(['Kadıköy']);
      await options('district').first().click();

      // PTT's spelling finds the place too; the form shows the name an address form shows.
      await page.locator('#neighborhood').pressSequentially('caferağa mah');
      await expect.poll(() => options('neighborhood').allTextContents()).toEqual(['Caferağa Mahallesi (34710)']);
      await page.locator('#neighborhood').fill('');
      await page.locator('#neighborhood').pressSequentially('zz');
      await expect.poll(() => options('neighborhood').allTextContents()).toEqual(['Eşleşme yok']);
      await page.locator('#neighborhood').fill('');
      await page.locator('#neighborhood').pressSequentially('cafer');
      await expect.poll(() => options('neighborhood').allTextContents()).toEqual(['Caferağa Mahallesi (34710)']);
      await options('neighborhood').first().click();
      expect(await page.locator('#zipCode').textContent()).toBe('34710');
      expect(await page.locator('#neighborhood').inputValue()).toBe('Caferağa Mahallesi');
    } finally {
      await page.close();
    }
  });

  it('a key bound to a web origin works from a page of that origin and is refused from another, which can read why', async () => {
    const third = await startOtherOrigin();
    const keys = path.join(await tempDir('refdata-browser-keys-'), 'keys');
    const browserKey = 'browser-key-0123456789abcdef';
    await writeFile(keys, `${browserKey} origin=${new URL(other.url).origin} rate=100/1m\n`);
    const bound = await startTestService(await buildFixture(), { API_KEYS_FILE: keys });
    const page = await browser.newPage();
    try {
      const url = `${bound.running.url}${region}`;
      const callFrom = async (origin: string) => {
        await page.goto(origin);
        return page.evaluate(
          async ([target, token]) => {
            const response = await fetch(target, { headers: { Authorization: `Bearer ${token}` } });
            const envelope = (await response.json()) as { header: { message: string } };
            return { status: response.status, code: response.headers.get('X-Error-Code'), message: envelope.header.message };
          },
          [url, browserKey] as const,
        );
      };
      expect(await callFrom(other.url)).toMatchObject({ status: 200, code: null });
      const refused = await callFrom(third.url);
      expect(refused).toMatchObject({ status: 403, code: 'ERR_KEY_ORIGIN' });
      expect(refused.message).toContain(new URL(third.url).origin);
    } finally {
      await page.close();
      await bound.close();
      await third.close();
    }
  });

  it('/docs renders the API under its Content Security Policy, with no violation reported', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      await page.goto(`${service.running.url}/docs`);
      await page.waitForSelector('.swagger-ui .info .title');
      expect(await page.textContent('.swagger-ui .info .title')).toContain('Reference data API');
      await page.waitForSelector('.opblock-summary-path');
      expect(await page.locator('.opblock-summary-path').count()).toBeGreaterThan(40);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('/docs keeps an expanded operation short: the statuses a client handles each shown, the rare ones under default, models folded', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`${service.running.url}/docs`);
      const operation = page.locator('[id$="-country-getbyalpha2code"]');
      await operation.locator('.opblock-summary').click();
      await operation.locator('.responses-table').waitFor();
      const codes = await operation.locator('.responses-table > tbody > tr.response').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-code')));
      expect(codes).toEqual(['200', '304', '400', '401', '403', '404', '429', '503', 'default']);
      // With each of 15 statuses written out and every model unfolded it was 7,750 px (nearly ten
      // screens of 800). Folded, with each failure's headers (X-Error-Code among them), it measures
      // about 4,760 px in Chromium 156 (its fonts and layout move it by a tenth): the bound is six and
      // a half screens, clear of that and well under the unfolded page.
      const height = (await operation.boundingBox())?.height ?? Number.POSITIVE_INFINITY;
      expect(height).toBeLessThan(6.5 * 800);
    } finally {
      await page.close();
    }
  });

  it('/docs "Try it out" is prefilled with the build\'s examples: TR for alpha2code, Türkiye\'s id for a country id', async () => {
    const turkey = pick(await fixtureRecords('country'), 'alpha2Code', 'TR');
    const page = await browser.newPage();
    try {
      await page.goto(`${service.running.url}/docs`);
      const prefilled = async (operationId: string, parameter: string): Promise<string> => {
        const operation = page.locator(`[id$="-${operationId}"]`);
        await operation.locator('.opblock-summary').click();
        await operation.locator('.try-out__btn').click();
        return operation.locator(`tr[data-param-name="${parameter}"] input`).inputValue();
      };
      expect(await prefilled('country-getbyalpha2code', 'alpha2code')).toBe('TR');
      expect(await prefilled('stateprovince-getbycountryid', 'countryid')).toBe(turkey.id);
    } finally {
      await page.close();
    }
  });
});
