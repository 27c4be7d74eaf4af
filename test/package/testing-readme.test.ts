// The README's createTestSurface example, as written, against the packed package in a fresh folder.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packedDir, projectFolder, sectionBlocks } from './packed.js';

describe('README: testing with agent-surface-kit/testing', () => {
  it('runs as written and does what its comments say', () => {
    const readme = readFileSync(join(packedDir(), 'node_modules/agent-surface-kit/README.md'), 'utf8');
    const blocks = sectionBlocks(readme, '### Testing with `agent-surface-kit/testing`').filter((b) => b.lang === 'js');
    assert.equal(blocks.length, 1);
    const dir = projectFolder('testing');
    // What the example computed, printed after it ran (the example itself asserts nothing).
    const probe = `\nconsole.log(JSON.stringify({ result, asked, invocations: surface.eventsOf('invocation').length }));\n`;
    writeFileSync(join(dir, 'example.mjs'), blocks[0].code + probe);
    const r = spawnSync(process.execPath, ['example.mjs'], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      result: { ok: boolean; output?: unknown };
      asked: { ok: boolean; error?: { code: string } };
      invocations: number;
    };
    assert.deepEqual(out.result.ok && out.result.output, { wiped: 'd1' });
    assert.equal(out.asked.error?.code, 'CONFIRMATION_REQUIRED');
    assert.ok(out.invocations >= 3);
  });
});
