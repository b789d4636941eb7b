import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { loadConfig } from '../src/config/config.js';
import { QueueName } from '../src/queues/queue-names.js';
import { createTestApp } from './support/app.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { deleteQueueKeys, ownQueuePrefix, waitFor } from './support/worker.js';
import { createCustomer } from './factories/customer.factory.js';
import { createTenant, type TestTenant } from './factories/tenant.factory.js';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it); CHROMIUM_PATH names another. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Where each page's screenshot is saved: test-output/screenshots/ at the project root (ignored by git), one PNG per
 * step, overwritten by every run: docs.png, docs-authorized.png, docs-v1-event.png, docs-v2-batch.png,
 * docs-V1Events_byUser-404.png, docs-Campaigns_get-404.png, queues.png, queues-failed.png, queues-retry-confirm.png
 * and queues-retried.png.
 */
const SCREENSHOTS = new URL('../test-output/screenshots/', import.meta.url).pathname;

/** A bound on each wait in the page (its elements, its answers), never an expectation of speed. */
const PAGE_WAIT_MS = 30_000;
jest.setTimeout(90_000);

/**
 * Headless Chromium, as root on a machine without a display or outside network: no sandbox (root), no GPU, and none of
 * Chromium's own background connections (updates, sync, field trials), which this closed network refuses. Puppeteer
 * gives the browser a fresh profile (--user-data-dir) of its own and deletes it on close.
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface ServedDocument {
  paths: Record<string, Record<string, { tags?: string[] }>>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * The two web pages people open, in a real browser (issue #32): Swagger UI at /docs (every tag, Authorize with an api
 * key and secret, "Try it out" on a V1 event and a V2 batch), and the queue dashboard at /admin/queues (asks for
 * credentials, shows the four queues, retries a failed job). One browser and one tab for the whole file; the steps
 * follow each other on the same page, as a user's would.
 */
describe('the web pages in headless Chromium', () => {
  const prefix = ownQueuePrefix('browser');
  const connection = { url: loadConfig(process.env).redisUrl, maxRetriesPerRequest: null };
  let app: INestApplication;
  let base: string;
  let browser: Browser;
  let page: Page;
  let tenant: TestTenant;
  let customer: { id: string; external_id: string };
  let webhooks: Queue;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`no Chromium at ${CHROMIUM}: apt-get install --no-install-recommends chromium (as .ci/run does), or set CHROMIUM_PATH`);
    }
    mkdirSync(SCREENSHOTS, { recursive: true });
    // A queue prefix of its own: the dashboard shows this file's jobs only.
    app = await createTestApp({ queuePrefix: prefix });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    tenant = await createTenant(app);
    customer = await createCustomer(app, tenant);
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    page = await browser.newPage();
    page.setDefaultTimeout(PAGE_WAIT_MS);
    await page.setViewport({ width: 1280, height: 900 });
    webhooks = new Queue(QueueName.Webhooks, { connection, prefix });
  });
  afterAll(async () => {
    await webhooks?.close();
    await browser?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  const screenshot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png` });

  describe('Swagger UI at /docs', () => {
    it('loads every tag and operation of the served document', async () => {
      const document = (await (await fetch(`${base}/docs-json`)).json()) as ServedDocument;
      const operations = Object.values(document.paths).flatMap((item) => Object.entries(item).filter(([method]) => METHODS.has(method)).map(([, operation]) => operation));
      const tags = [...new Set(operations.flatMap((operation) => operation.tags ?? []))];
      expect(tags.length).toBeGreaterThan(10);

      await page.goto(`${base}/docs`);
      // Swagger UI renders the whole document in one pass (it is embedded in the page): once a tag is there, all are.
      await page.waitForSelector('.opblock-tag-section .opblock');
      const shown = await page.$$eval('h3.opblock-tag', (headings) => headings.map((heading) => heading.getAttribute('data-tag')));
      expect(shown.sort()).toEqual([...tags].sort());
      expect(await page.$$eval('.opblock-tag-section .opblock', (blocks) => blocks.length)).toBe(operations.length);
      await screenshot('docs');
    });

    it('"Authorize" takes the api key and secret as HTTP Basic credentials', async () => {
      // Locators wait for what they act on to be shown and settled, as a user's eyes do.
      await page.locator('.auth-wrapper button.authorize').click();
      await page.locator('.modal-ux .auth-container h4 ::-p-text(api_key)').wait();
      await page.locator('#auth-basic-username').fill(tenant.apiKey);
      await page.locator('#auth-basic-password').fill(tenant.apiSecret);
      await page.locator('.modal-ux .auth-container:has(#auth-basic-username) button.authorize').click();
      // Authorized: the form says so, shows the user name in place of the inputs, and offers to log out.
      const authorized = await page.waitForSelector('.modal-ux .auth-container:has(button[aria-label="Remove authorization"])');
      const text = await authorized!.evaluate((container) => container.textContent ?? '');
      expect(text).toContain('Authorized');
      expect(text).toContain(tenant.apiKey);
      expect(text).not.toContain(tenant.apiSecret);
      await screenshot('docs-authorized');
      await page.locator('.modal-ux button.btn-done').click();
      await page.waitForSelector('.modal-ux', { hidden: true });
    });

    /** Opens an operation, "Try it out", fills its path parameters, keeps its example body, Execute; answers what the page shows. */
    async function tryItOut(operationId: string, params: Record<string, string>): Promise<{ status: string; response: string; curl: string }> {
      const block = `.opblock[id$="-${operationId}"]`;
      await page.locator(`${block} .opblock-summary`).click();
      await page.locator(`${block} button.try-out__btn`).click();
      for (const [name, value] of Object.entries(params)) await page.locator(`${block} tr[data-param-name="${name}"] input`).fill(value);
      await page.locator(`${block} button.execute`).click();
      const status = await page.waitForSelector(`${block} .live-responses-table .response .response-col_status`);
      const response = await page.$eval(`${block} .live-responses-table .response .response-col_description`, (cell) => cell.textContent ?? '');
      const curl = await page.$eval(`${block} .curl-command`, (cell) => cell.textContent ?? '');
      // The screenshot that follows shows the answer, as the user sees it after Execute.
      await page.$eval(`${block} .live-responses-table`, (table) => table.scrollIntoView({ block: 'center' }));
      return { status: (await status!.evaluate((cell) => cell.textContent ?? '')).trim(), response, curl };
    }

    it('"Try it out" on the V1 event route with its example body answers 200 in the page', async () => {
      const answer = await tryItOut('V1Events_byUser', { api_key: tenant.apiKey, user_id: customer.id });
      await screenshot('docs-v1-event');
      expect(answer.curl).toContain(`/priv/v1/apps/${tenant.apiKey}/users/${customer.id}/events`);
      expect(answer.curl).toContain(`Authorization: Basic ${Buffer.from(`${tenant.apiKey}:${tenant.apiSecret}`).toString('base64')}`);
      expect(answer.status).toBe('200');
      expect(answer.response).toContain('"status": "ok"');
    });

    it('"Try it out" on the V2 batch route with its example body answers 200 in the page', async () => {
      const answer = await tryItOut('V2Events_send', { api_key: tenant.apiKey });
      await screenshot('docs-v2-batch');
      expect(answer.curl).toContain(`/priv/v2/apps/${tenant.apiKey}/events`);
      expect(answer.status).toBe('200');
      expect(answer.response).toContain('"status": "ok"');
    });
  });

  /**
   * Issue #32, item 5: every error status of an operation used to show one example (a validation error about
   * user.time_zone). Each now shows its own (src/common/http/error-examples.ts), as the page renders it.
   */
  describe('Swagger UI: each error status shows its own example', () => {
    /** The text of the documented answer `status` of an operation, opened if it is not (the table below the operation, not Execute's). */
    async function documentedAnswer(operationId: string, status: string): Promise<string> {
      const block = `.opblock[id$="-${operationId}"]`;
      if (!(await page.$(`${block}.is-open`))) await page.locator(`${block} .opblock-summary`).click();
      const row = await page.waitForSelector(`${block} table.responses-table:not(.live-responses-table) tr.response[data-code="${status}"]`);
      await row!.scrollIntoView();
      return row!.evaluate((cell) => cell.textContent ?? '');
    }

    it.each([
      ['V1Events_byUser', 'user not found'],
      ['Campaigns_get', 'campaign not found'],
    ])('%s: 401 shows unauthorized, 404 shows not_found naming its object', async (operationId, notFound) => {
      const unauthorized = await documentedAnswer(operationId, '401');
      expect(unauthorized).toContain('"code": "unauthorized"');
      expect(unauthorized).not.toContain('"code": "validation"');
      const missing = await documentedAnswer(operationId, '404');
      expect(missing).toContain('"code": "not_found"');
      expect(missing).toContain(`"message": "${notFound}"`);
      await screenshot(`docs-${operationId}-404`);
    });
  });

  describe('the queue dashboard at /admin/queues', () => {
    it('asks the browser for credentials', async () => {
      // Headless Chromium has no login prompt: asked for credentials it has none of, it ends the navigation.
      const url = `${base}/admin/queues/`;
      const challenge = page.waitForResponse((response) => response.url() === url);
      await expect(page.goto(url)).rejects.toThrow('ERR_INVALID_AUTH_CREDENTIALS');
      const answer = await challenge;
      expect(answer.status()).toBe(401);
      expect(answer.headers()['www-authenticate']).toBe('Basic realm="queues"');
    });

    it('with ADMIN_TOKEN as the password, shows the four queues', async () => {
      await page.authenticate({ username: 'admin', password: TEST_ADMIN_TOKEN });
      const answer = await page.goto(`${base}/admin/queues/`);
      expect(answer?.status()).toBe(200);
      // The menu lists the four queues, and the overview a card of each with its count of jobs. The cards link to the
      // queues too (in name order, once their counts are in): the menu's links are the ones outside main.
      const menu = 'a[href^="/admin/queues/queue/"]:not(main *)';
      for (const name of Object.values(QueueName)) await page.waitForSelector(`${menu}[href$="/${name}"]`);
      await page.waitForSelector('main ::-p-text(0 Jobs)');
      expect(await page.$$eval(menu, (links) => links.map((link) => link.textContent?.trim()))).toEqual(Object.values(QueueName));
      const overview = await page.$eval('main', (main) => main.textContent ?? '');
      for (const name of Object.values(QueueName)) expect(overview).toContain(name);
      await screenshot('queues');
    });

    it('retries a failed job: it leaves the failed list', async () => {
      // A delivery that fails its only attempt, through a BullMQ worker of this test's own on the dashboard's queue.
      const failing = new Worker(QueueName.Webhooks, async () => Promise.reject(new Error('receiver answered 503')), { connection, prefix });
      try {
        await webhooks.add('deliver', { delivery: 'browser-test' }, { jobId: 'browser-failed-1', attempts: 1 });
        await waitFor(async () => (await webhooks.getJobState('browser-failed-1')) === 'failed', PAGE_WAIT_MS, 'the job to fail');
      } finally {
        await failing.close();
      }
      await page.goto(`${base}/admin/queues/queue/${QueueName.Webhooks}?status=failed`);
      await page.waitForSelector('::-p-text(receiver answered 503)');
      await screenshot('queues-failed');
      // The job's own retry button (an icon whose tooltip says Retry, first of the card's actions), not the list's "Retry all".
      await page.locator('[class^="card-"]:has(a[href*="/browser-failed-1?"]) [class^="jobActions-"] button:has(svg.lucide-refresh-cw)').click();
      // The dashboard asks first (its "Confirm job actions" setting, on by default), naming one job.
      await page.locator('[role="alertdialog"] ::-p-text(Are you sure that you want to retry this job?)').wait();
      await screenshot('queues-retry-confirm');
      await page.locator('[role="alertdialog"] button ::-p-text(Confirm)').click();
      await waitFor(async () => (await webhooks.getJobState('browser-failed-1')) !== 'failed', PAGE_WAIT_MS, 'the job to leave the failed list');
      expect(await webhooks.getJobState('browser-failed-1')).toBe('waiting');
      await page.waitForSelector('::-p-text(No failed jobs in this queue.)');
      await screenshot('queues-retried');
    });
  });
});
