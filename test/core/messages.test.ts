// Model-visible text that ends with an author's words (an unavailable reason, a policy's denial, a
// contract problem) ends with exactly one full stop, whatever punctuation the author used.
import { afterEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { devAuthority } from '../../src/core/authority.js';
import { invalidContractError } from '../../src/core/contract.js';
import { createAgentSurfaceRegistry } from '../../src/core/registry.js';
import { boundLiveText } from '../../src/core/live-text.js';
import { endSentence } from '../../src/core/util.js';
import { contract, errorOf, quietConsole } from './registry-helpers.js';

const consumer = { id: 'agent', kind: 'test' } as const;
const endings = fc.constantFrom('', '.', '!', '?', '…', '.)', '."', ' ', '. ', '..', '\n');
/** Author text: words, then any of the endings people type. */
const authorText = fc
  .tuple(fc.stringMatching(/^[A-Za-z][A-Za-z ,'-]{0,40}[A-Za-z]$/), endings)
  .map(([words, end]) => words + end);

/** No run of two or more dots the author did not write, and one terminal mark at the end. */
function assertOneStop(message: string, author: string): void {
  const ours = message.replace(author.trimEnd(), '');
  assert.doesNotMatch(ours, /\.\./, message);
  assert.match(message, /[^.][.!?…]["')]*$|[^.]\.\.$/, message);
  if (!author.trimEnd().endsWith('..')) assert.doesNotMatch(message, /\.\.$/, message);
}

afterEach(() => mock.restoreAll());

describe('sentences that end with author text', () => {
  it('endSentence adds a full stop only when none is there', () => {
    fc.assert(
      fc.property(authorText, (text) => {
        const out = endSentence(text);
        assert.match(out, /[.!?…]["'’”)\]]*$/);
        assert.ok(out.startsWith(text.trimEnd()));
        assert.ok(out.length - text.trimEnd().length <= 1);
        assert.equal(endSentence(out), out);
      }),
    );
    assert.equal(endSentence('The device is locked.'), 'The device is locked.');
    assert.equal(endSentence('The device is locked'), 'The device is locked.');
    assert.equal(endSentence('Is it locked? '), 'Is it locked?');
    assert.equal(endSentence('(locked.)'), '(locked.)');
  });

  it('CAPABILITY_NOT_AVAILABLE and NOT_AUTHORIZED never double the author punctuation', async () => {
    quietConsole();
    await fc.assert(
      fc.asyncProperty(authorText, authorText, async (reason, deny) => {
        const registry = createAgentSurfaceRegistry({
          authority: devAuthority(),
          policies: [{ name: 'p', authorize: (ctx) => (ctx.capability.capabilityId === 'domain:b' ? { deny } : true) }],
        });
        try {
          registry.register({ contract: contract('domain:a'), handler: () => ({}), state: { available: false, unavailableReason: reason } });
          registry.register({ contract: contract('domain:b'), handler: () => ({}) });
          const a = errorOf(await registry.invoke({ capabilityId: 'domain:a', input: {}, invocationId: 'a', consumer }));
          assert.equal(a.code, 'CAPABILITY_NOT_AVAILABLE');
          // An unavailable reason is live page text: the kit shows it bounded (one line, one space
          // between words), so that is the author's text as it appears in the message.
          if (reason.trim()) assertOneStop(a.message, boundLiveText(reason)!);
          else assert.equal(a.message, '"domain:a" is not available right now.');
          const b = errorOf(await registry.invoke({ capabilityId: 'domain:b', input: {}, invocationId: 'b', consumer }));
          assert.equal(b.code, 'NOT_AUTHORIZED');
          if (deny.trim()) assertOneStop(b.message, deny);
        } finally {
          registry.dispose();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('the exact case from the issue: a reason that ends with a full stop', async () => {
    quietConsole();
    const registry = createAgentSurfaceRegistry({ authority: devAuthority() });
    registry.register({
      contract: contract('domain:devices.rename'),
      handler: () => ({}),
      state: { available: false, unavailableReason: 'The device is locked.' },
    });
    const error = errorOf(await registry.invoke({ capabilityId: 'domain:devices.rename', input: {}, invocationId: 'x', consumer }));
    assert.equal(error.message, '"domain:devices.rename" is not available right now: The device is locked.');
    registry.dispose();
  });

  it('contract problems end with one stop', () => {
    const error = invalidContractError({ id: 'domain:a' }, [{ field: 'effect', message: 'effect is missing.' } as never]);
    assert.equal(error.message.endsWith('missing.'), true, error.message);
    assert.doesNotMatch(error.message, /\.\.$/);
  });
});
