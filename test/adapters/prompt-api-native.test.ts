// The native-tools probe of the Prompt API engine against this Chromium's own `LanguageModel`, as
// shipped and with Chromium's experimental tool use on (`--enable-features=AIPromptAPIToolUse`):
// as shipped the `tools` option is silently dropped (the prompt format is used); with the flag the
// browser reads each tool's name, description and inputSchema but not `execute`, and exposes the
// tool-response classes (the `declared` design). Node drives Chromium (playwright-core) because a
// web-test-runner run has one set of browser flags.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { chromiumArgs } from '../../scripts/chromium-args.mjs';

describe('the Prompt API tools probe in Chromium', { timeout: 120_000 }, () => {
  let server: Server;
  let origin: string;
  let bundle: string;

  before(async () => {
    const out = await build({
      entryPoints: ['src/adapters/local/engines/prompt-api.ts'],
      bundle: true,
      format: 'iife',
      globalName: 'promptApi',
      write: false,
      logLevel: 'silent',
    });
    bundle = out.outputFiles[0]!.text;
    // A page on 127.0.0.1 is a secure context, which `LanguageModel` needs.
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>probe</title>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function probe(features: string[]) {
    const args = features.length ? [...chromiumArgs, `--enable-features=${features.join(',')}`] : chromiumArgs;
    const browser = await chromium.launch({ executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium', args });
    try {
      const page = await browser.newPage();
      await page.goto(origin);
      await page.addScriptTag({ content: bundle });
      return await page.evaluate(async () => {
        const g = globalThis as unknown as { LanguageModel?: unknown; promptApi: { probeTools(lm: unknown): Promise<{ design?: string; availability?: string }> } };
        if (!g.LanguageModel) return { hasLanguageModel: false };
        return { hasLanguageModel: true, ...(await g.promptApi.probeTools(g.LanguageModel)) };
      });
    } finally {
      await browser.close();
    }
  }

  it('as shipped: LanguageModel exists and drops the tools option, so no native design is found', async () => {
    const r = await probe([]);
    if (!r.hasLanguageModel) return; // a build without the Prompt API: nothing to probe
    assert.equal((r as { design?: string }).design, undefined);
    assert.ok(['unavailable', 'downloadable', 'downloading', 'available'].includes((r as { availability: string }).availability));
  });

  it('with AIPromptAPIToolUse: the declared design (tools read without execute, the response classes present)', async () => {
    const r = await probe(['AIPromptAPIToolUse']);
    if (!r.hasLanguageModel) return;
    assert.equal((r as { design?: string }).design, 'declared');
  });
});
