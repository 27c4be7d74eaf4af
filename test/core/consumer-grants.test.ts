// The grant check that every markup-declared projection runs (issue 13, item 4).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checkConsumerGrant } from '../../src/core/consumer-grant-check.js';
import { checkExposedToGrant, originOf } from '../../src/core/exposed-to-grant.js';
import { consumerGrantsOf, grantConsumers } from '../../src/core/consumer-grants.js';

describe('consumer grants', () => {
  it('refuses a projection nobody granted, whatever its attributes', () => {
    const registry = {};
    for (const asked of [{}, { consumer: 'webmcp' }, { consumer: 'panel', prefix: 'x_' }]) {
      const verdict = checkConsumerGrant(registry, 'webmcp', asked, 'webmcp');
      assert.equal(verdict.ok, false);
      assert.equal(!verdict.ok && verdict.reason, 'not-granted');
    }
    grantConsumers(registry, { chat: true });
    assert.equal(checkConsumerGrant(registry, 'webmcp', {}, 'webmcp').ok, false, 'a grant to chat is not one to webmcp');
  });

  it('markup may repeat the granted identity and prefix, never another', () => {
    const registry = {};
    grantConsumers(registry, { webmcp: { prefix: 'x_' }, chat: { consumer: 'panel' } });
    assert.deepEqual(checkConsumerGrant(registry, 'webmcp', {}, 'webmcp'), { ok: true, consumer: 'webmcp', prefix: 'x_' });
    assert.deepEqual(checkConsumerGrant(registry, 'webmcp', { consumer: 'webmcp', prefix: 'x_' }, 'webmcp'), {
      ok: true,
      consumer: 'webmcp',
      prefix: 'x_',
    });
    // Borrowing the chat's identity to slip past consumer-based policies:
    const borrowed = checkConsumerGrant(registry, 'webmcp', { consumer: 'panel' }, 'webmcp');
    assert.equal(!borrowed.ok && borrowed.reason, 'consumer-mismatch');
    const prefixed = checkConsumerGrant(registry, 'webmcp', { prefix: 'y_' }, 'webmcp');
    assert.equal(!prefixed.ok && prefixed.reason, 'prefix-mismatch');
    assert.deepEqual(checkConsumerGrant(registry, 'chat', { consumer: '' }, 'chat'), { ok: true, consumer: 'panel', prefix: undefined });
    const chatDefault = checkConsumerGrant(registry, 'chat', { consumer: 'chat' }, 'chat');
    assert.equal(!chatDefault.ok && chatDefault.reason, 'consumer-mismatch');
  });

  it('true grants the defaults; a grant without a prefix leaves the prefix to markup', () => {
    const registry = {};
    grantConsumers(registry, { webmcp: true });
    assert.deepEqual(checkConsumerGrant(registry, 'webmcp', { prefix: 'a_' }, 'webmcp'), { ok: true, consumer: 'webmcp', prefix: 'a_' });
    const other = checkConsumerGrant(registry, 'webmcp', { consumer: 'admin' }, 'webmcp');
    assert.equal(!other.ok && other.reason, 'consumer-mismatch');
  });

  it('withdrawing and replacing grants is seen at once', () => {
    const registry = {};
    grantConsumers(registry, { webmcp: true });
    assert.equal(checkConsumerGrant(registry, 'webmcp', {}, 'webmcp').ok, true);
    grantConsumers(registry, undefined);
    assert.equal(consumerGrantsOf(registry), undefined);
    assert.equal(checkConsumerGrant(registry, 'webmcp', {}, 'webmcp').ok, false);
    grantConsumers(registry, { webmcp: true });
    grantConsumers(registry, 'webmcp' as never);
    assert.equal(checkConsumerGrant(registry, 'webmcp', {}, 'webmcp').ok, false, 'a mistake withdraws');
  });

  it('never lets any asked identity other than the granted one through (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.option(fc.string()), fc.option(fc.string()), (granted, asked, gp, ap) => {
        const registry = {};
        grantConsumers(registry, { webmcp: { consumer: granted, ...(gp !== null ? { prefix: gp } : {}) } });
        const verdict = checkConsumerGrant(registry, 'webmcp', { consumer: asked, prefix: ap }, 'webmcp');
        if (!verdict.ok) return;
        assert.equal(verdict.consumer, granted || 'webmcp');
        if (asked) assert.equal(asked, verdict.consumer);
        if (gp) assert.equal(verdict.prefix, gp);
      }),
    );
  });
  it('exposedTo: only granted origins, compared as origins; absent, the grant\'s list', () => {
    const registry = {};
    grantConsumers(registry, { webmcp: { exposedTo: ['https://a.example', 'https://b.example:8443/path'] } });
    const ask = (exposedTo?: string[]) => checkExposedToGrant(registry, 'webmcp', exposedTo);
    assert.deepEqual(ask(), { ok: true, exposedTo: ['https://a.example', 'https://b.example:8443'] });
    assert.deepEqual(ask(['https://A.example/x?y']), { ok: true, exposedTo: ['https://a.example'] });
    for (const stray of [['https://c.example'], ['https://a.example', 'http://a.example'], ['https://b.example'], ['not a url']]) {
      const v = ask(stray);
      assert.equal(v.ok, false, JSON.stringify(stray));
      assert.match(!v.ok ? v.message : '', /is not an origin granted to "webmcp"/);
    }
    // A grant without exposedTo opens no origin: markup asking for any is refused, none asked is fine.
    grantConsumers(registry, { webmcp: true });
    assert.deepEqual(ask(), { ok: true, exposedTo: undefined });
    // The identity check is unchanged by it.
    assert.deepEqual(checkConsumerGrant(registry, 'webmcp', {}, 'webmcp'), { ok: true, consumer: 'webmcp', prefix: undefined });
    assert.equal(ask(['https://a.example']).ok, false);
    assert.equal(originOf('https://x.example:443/a'), 'https://x.example');
    assert.equal(originOf('garbage'), 'garbage');
  });

  it('never lets an origin the grant does not list through (property)', () => {
    const origin: fc.Arbitrary<string> = fc.constantFrom('https://a.example', 'https://b.example', 'http://localhost:8000', 'https://c.example', 'https://evil.example');
    fc.assert(
      fc.property(fc.uniqueArray(origin, { maxLength: 3 }), fc.array(origin, { minLength: 1, maxLength: 4 }), (granted, asked) => {
        const registry = {};
        grantConsumers(registry, { webmcp: { exposedTo: granted } });
        const v = checkExposedToGrant(registry, 'webmcp', asked);
        assert.equal(v.ok, asked.every((o) => granted.includes(o)));
        if (v.ok) assert.ok(v.exposedTo!.every((o) => granted.includes(o)));
      }),
    );
  });
});
