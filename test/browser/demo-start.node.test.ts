// The demo as `npm start` serves it (the same server, scripts/demo-server.mjs, on 127.0.0.1:0), in
// a Chromium tab of its own, the way a first-time visitor opens it: the page loads production lit
// (lit's development build logs "Lit is in dev mode" on every load), and logs no error and no
// development warning but the one that is true here (no WebMCP host).
// Node drives Chromium here (playwright-core) because web-test-runner's own server resolves
// packages for development, as the kit's element tests want.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { chromiumArgs } from '../../scripts/chromium-args.mjs';
import { startDemoServer, type DemoServer } from '../../scripts/demo-server.mjs';

describe('npm start: the demo in Chromium', { timeout: 300_000 }, () => {
  let server: DemoServer;
  let browser: Browser;
  let origin: string;

  before(async () => {
    server = await startDemoServer({ port: 0, hostname: '127.0.0.1' });
    const address = server.server!.address() as AddressInfo;
    origin = `http://127.0.0.1:${address.port}`;
    browser = await chromium.launch({ executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium', args: chromiumArgs });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const path of ['/demo/', '/demo/csp.html']) {
    it(`${path} loads production lit and logs no error`, async () => {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      // Playwright's waits give up after 30 s by default; a loaded machine only ever gets a safety net.
      page.setDefaultTimeout(120_000);
      const messages: string[] = [];
      page.on('console', (m) => messages.push(`${m.type()}: ${m.text()}`));
      page.on('pageerror', (e) => messages.push(`pageerror: ${e.message}`));
      try {
        const response = await page.goto(`${origin}${path}`);
        assert.equal(response?.status(), 200);
        await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', undefined, { timeout: 60_000 });
        // The kit's development warnings come one task after the elements set up: let two tasks pass.
        for (let i = 0; i < 2; i++) await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
        const lit = await page.evaluate(() => {
          const g = globalThis as { litIssuedWarnings?: Set<string>; litElementVersions?: string[] };
          return { versions: g.litElementVersions ?? [], devWarnings: g.litIssuedWarnings ? [...g.litIssuedWarnings] : [] };
        });
        // lit ran (it records its version in every build), and only its development build keeps a
        // set of issued warnings.
        assert.ok(lit.versions.length > 0, 'lit-element loaded');
        assert.deepEqual(lit.devWarnings, [], 'no lit development-build warnings');
        assert.deepEqual(
          messages.filter((m) => /lit is in dev mode|lit\.dev\/msg/i.test(m)),
          [],
          'no lit dev-mode message in the console',
        );
        // The kit's development checks find nothing wrong with the demo's markup. The one warning
        // expected is the true one: this Chromium has no WebMCP host for <agent-webmcp>.
        assert.deepEqual(
          messages.filter((m) => /^warning:/.test(m) && !/\[agent-surface-kit WEBMCP_UNSUPPORTED\]/.test(m)),
          [],
          'no other warning in the console',
        );
        // csp.html probes its own policy (an inline script and eval, both meant to be blocked), and
        // Chromium reports each block as a console error: those two are the page working.
        const probes = path.endsWith('csp.html') ? /violates the following Content Security Policy directive/ : /$^/;
        assert.deepEqual(
          messages.filter((m) => /^(error|pageerror):/.test(m) && !probes.test(m)),
          [],
          'no error in the console',
        );
      } finally {
        await page.close();
      }
    });
  }
});
