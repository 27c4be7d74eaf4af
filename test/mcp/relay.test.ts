// Page tools to a desktop MCP client through MCP-B's local relay (@mcp-b/webmcp-local-relay):
// Chromium runs a page with <agent-webmcp> on the @mcp-b polyfill host and the relay's embed script;
// the relay runs on loopback; an SDK Client talks to the relay over stdio, as a desktop client does.
// A destructive call waits for <agent-confirm> in the page and a real (trusted) mouse click.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromiumArgs } from '../../scripts/chromium-args.mjs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { textJson } from './helpers.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '../..');
const relayDir = join(root, 'node_modules/@mcp-b/webmcp-local-relay/dist');

/** A free loopback port for the relay, whose command line refuses port 0. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A call that waits for a click in the page: the SDK's 60 s default is no safety net on a loaded machine. */
const WAITS_FOR_A_PERSON = { timeout: 150_000 };

describe('MCP-B local relay end to end', { timeout: 180_000 }, () => {
  let http: HttpServer;
  let origin: string;
  let browser: Browser;
  let page: Page;
  let client: Client;
  let relayLog = '';

  before(async () => {
    const bundle = await build({
      entryPoints: [join(here, 'fixtures/relay-page.ts')],
      bundle: true,
      format: 'esm',
      target: 'es2022',
      write: false,
      tsconfig: join(root, 'tsconfig.json'),
      // package.json's sideEffects describes dist/; from src the elements' import is a side effect.
      ignoreAnnotations: true,
      logLevel: 'silent',
    });
    const pageJs = bundle.outputFiles[0]!.text;
    const files: Record<string, [string, string]> = {
      '/': [
        'text/html',
        '<!doctype html><meta charset="utf-8"><title>relay e2e</title><script type="module" src="/page.js"></script>',
      ],
      '/page.js': ['text/javascript', pageJs],
    };
    for (const name of ['embed.js', 'widget.html', 'widget.js'])
      files[`/relay/${name}`] = [
        name.endsWith('.html') ? 'text/html' : 'text/javascript',
        await readFile(join(relayDir, 'browser', name), 'utf8'),
      ];
    http = createServer((req, res) => {
      const file = files[new URL(req.url ?? '/', 'http://x').pathname];
      if (!file) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

    const relayPort = await freePort();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        join(relayDir, 'cli.js'),
        '--host',
        '127.0.0.1',
        '--port',
        String(relayPort),
        '--widget-origin',
        origin,
      ],
      stderr: 'pipe',
    });
    transport.stderr!.on('data', (c: Buffer) => (relayLog += c.toString()));
    client = new Client({ name: 'desktop-client', version: '1' });
    await client.connect(transport);

    browser = await chromium.launch({
      executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
      args: chromiumArgs,
    });
    page = await browser.newPage();
    // Playwright's waits give up after 30 s by default; a loaded machine only ever gets a safety net.
    page.setDefaultTimeout(120_000);
    page.on('console', (m) => (relayLog += `[page] ${m.text()}\n`));
    await page.goto(`${origin}/?relayPort=${relayPort}`);
    page.on('pageerror', (e) => (relayLog += `[page error] ${e.message}\n`));
    await page
      .waitForFunction(() => (window as unknown as { embedded?: boolean }).embedded === true, undefined, {
        timeout: 60_000,
      })
      .catch(async (e: unknown) => {
        const status = await page.evaluate(() =>
          document.querySelector('agent-webmcp')?.getAttribute('status'),
        );
        throw new Error(
          `the page never embedded the relay (agent-webmcp status ${status}): ${String(e)}\n${relayLog}`,
        );
      });
  });

  after(async () => {
    await client?.close();
    await browser?.close();
    await new Promise((resolve) => http?.close(resolve));
  });

  /** The relay's tools once the page's have arrived (over the relay's WebSocket, announced by list_changed). */
  async function relayedTools(): Promise<string[]> {
    for (;;) {
      const changed = new Promise<void>((resolve) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
      );
      const names = (await client.listTools()).tools.map((t) => t.name);
      if (names.includes('domain_devices__wipe')) return names;
      await changed;
    }
  }

  /** A real, trusted click at the centre of <agent-confirm>'s approve or deny button, once it accepts input. */
  async function click(which: 'approve' | 'deny'): Promise<void> {
    await page.waitForFunction(
      (part) =>
        document
          .querySelector('agent-confirm')
          ?.shadowRoot?.querySelector(`[part~="${part}"]`)
          ?.getAttribute('aria-disabled') === 'false',
      which,
    );
    const box = (await page.locator(`agent-confirm [part~="${which}"]`).boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  }

  const ran = () => page.evaluate(() => (window as unknown as { ran: string[] }).ran);

  it('lists the page’s tools through the relay and calls one', async () => {
    const names = await relayedTools().catch((e) => {
      throw new Error(`${e}\n${relayLog}`);
    });
    assert.ok(names.includes('domain_devices__list'), `${names.join(', ')}\n${relayLog}`);
    assert.ok(names.includes('domain_devices__wipe'));
    const result = await client.callTool({ name: 'domain_devices__list', arguments: {} });
    assert.equal(result.isError ?? false, false, JSON.stringify(result));
    assert.deepEqual(textJson(result), { devices: ['d1', 'd2'] });
  });

  it('a destructive call waits for <agent-confirm> and a real click in the page', async () => {
    await relayedTools();
    const call = client.callTool({ name: 'domain_devices__wipe', arguments: { id: 'd2' } }, undefined, WAITS_FOR_A_PERSON);
    await page.waitForFunction(
      () => document.querySelector('agent-confirm')?.shadowRoot?.querySelector('[part~="approve"]') != null,
    );
    assert.deepEqual(await ran(), [], 'nothing runs before the click');
    await click('approve');
    const result = await call;
    assert.equal(result.isError ?? false, false, JSON.stringify(result));
    assert.deepEqual(textJson(result), { wiped: 'd2' });
    assert.deepEqual(await ran(), ['wipe d2']);
  });

  it('a click on Deny answers CONFIRMATION_INVALID; nothing runs', async () => {
    await relayedTools();
    const call = client.callTool({ name: 'domain_devices__wipe', arguments: { id: 'd1' } }, undefined, WAITS_FOR_A_PERSON);
    await click('deny');
    const result = await call;
    assert.equal(result.isError, true);
    assert.equal(textJson(result).code, 'CONFIRMATION_INVALID');
    assert.deepEqual(await ran(), ['wipe d2']);
  });
});
