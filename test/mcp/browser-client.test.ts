// serveMcpHttp for a browser-based MCP client: the SDK's Client bundled into a page on another
// origin (another loopback port), in Chromium. allowedOrigins is what lets such a page in, and only
// CORS answers make the browser hand the page the server's responses (and the Mcp-Session-Id).
import { after, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumArgs } from '../../scripts/chromium-args.mjs';
import { serveMcpHttp, type McpHttpServer } from '../../src/mcp/index.js';
import { createDevices, type Devices } from './fixtures/devices.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '../..');

interface PageRun {
  ok: boolean;
  error?: string;
  names?: string[];
  structuredContent?: unknown;
  sessionId?: string;
}

describe('serveMcpHttp and a browser page on a listed origin', { timeout: 300_000 }, () => {
  let pages: HttpServer;
  let origin: string;
  let browser: Browser;
  let page: Page;
  let devices: Devices;
  let server: McpHttpServer;

  before(async () => {
    mock.method(console, 'warn', () => {});
    const bundle = await build({
      entryPoints: [join(here, 'fixtures/browser-client-page.ts')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      tsconfig: join(root, 'tsconfig.json'),
      logLevel: 'silent',
    });
    const pageJs = bundle.outputFiles[0]!.text;
    pages = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(pageJs);
      else if (path === '/')
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<!doctype html><meta charset="utf-8"><title>browser MCP client</title><script type="module" src="/page.js"></script>',
          );
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;

    devices = createDevices();
    server = await serveMcpHttp(devices.registry, { allowedOrigins: [origin] });

    browser = await chromium.launch({
      executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
      args: chromiumArgs,
    });
    page = await browser.newPage();
    // Playwright's waits give up after 30 s by default; a loaded machine only ever gets a safety net.
    page.setDefaultTimeout(120_000);
    await page.goto(`${origin}/`);
    await page.waitForFunction(
      () => typeof (window as unknown as { runMcpClient?: unknown }).runMcpClient === 'function',
    );
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    devices?.surface.dispose();
    await new Promise<void>((resolve) => (pages ? pages.close(() => resolve()) : resolve()));
    mock.restoreAll();
  });

  it('connects, lists, calls and ends its session, the server on another port of loopback', async () => {
    const run = await page.evaluate(
      (url) => (window as unknown as { runMcpClient(url: string): Promise<PageRun> }).runMcpClient(url),
      server.url,
    );
    assert.equal(run.ok, true, run.error);
    assert.ok(run.names!.includes('domain_devices__rename'), run.names!.join(', '));
    assert.deepEqual(run.structuredContent, { id: 'd1', name: 'Laser' });
    assert.deepEqual(devices.calls, ['rename d1 Laser']);
    // The page read the session id and ended the session with DELETE.
    assert.equal(typeof run.sessionId, 'string');
    assert.equal(server.sessionCount, 0);
  });
});
