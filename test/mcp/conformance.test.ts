// The official MCP conformance suite (@modelcontextprotocol/conformance, server scenarios, every
// suite) against serveMcpHttp on a fixture registry whose toolName gives the suite's tool names.
// Scenarios that do not apply to a tools-only server are in conformance/expected-failures.yml; the
// suite itself fails the run for an unexpected failure and for a listed scenario that passes.
import { after, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveMcpHttp, type McpHttpServer } from '../../src/mcp/index.js';
import { conformanceToolName, createConformanceSurface } from './fixtures/conformance-registry.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '../..');
const suite = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

describe('the official MCP conformance suite', () => {
  const surface = createConformanceSurface();
  let server: McpHttpServer;
  // The suite writes results/ into its working directory: a throwaway one.
  const work = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  before(async () => {
    mock.method(console, 'warn', () => {});
    server = await serveMcpHttp(surface.registry, { toolName: conformanceToolName });
  });
  after(async () => {
    await server.close();
    surface.dispose();
    mock.restoreAll();
    rmSync(work, { recursive: true, force: true });
  });

  it('passes every server scenario that applies to a tools-only server', { timeout: 300_000 }, async () => {
    const child = spawn(
      process.execPath,
      [
        // Node 20: stub the one import the suite's bundle cannot load here (see conformance/hooks.mjs).
        '--import',
        join(here, 'conformance/register.mjs'),
        suite,
        'server',
        '--url',
        server.url,
        '--suite',
        'all',
        '--expected-failures',
        join(here, 'conformance/expected-failures.yml'),
      ],
      { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const [code] = await once(child, 'exit');
    const summary = out.slice(out.indexOf('=== SUMMARY ==='));
    assert.equal(code, 0, summary || out);
    assert.match(summary, /Baseline check passed/);
    // The scenarios the kit answers, each seen passing (not merely absent).
    for (const scenario of [
      'server-initialize',
      'ping',
      'tools-list',
      'tools-call-simple-text',
      'tools-call-error',
      'tools-call-elicitation',
      'json-schema-2020-12',
      'server-sse-multiple-streams',
      'dns-rebinding-protection',
    ]) {
      assert.match(
        summary,
        new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`),
        `${scenario} did not pass:\n${summary}`,
      );
    }
  });
});
