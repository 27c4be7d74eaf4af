import { expect } from '@open-wc/testing';
import { SAFETY_NET_MS } from '../until.js';

interface CspResult {
  admitted: boolean;
  good: { valid: boolean };
  bad: { valid: boolean; issues?: Array<{ path: string; keyword?: string }> };
  rawGood: boolean;
  rawBad: boolean;
  output: { valid: boolean; issues?: Array<{ path: string }> };
  violationsWhileValidating: unknown[];
  evalBlocked: boolean;
  probeReported: boolean;
}

function loadFrame(src: string): Promise<{ result?: CspResult; error?: string }> {
  return new Promise((resolve, reject) => {
    const frame = document.createElement('iframe');
    // A safety net: the frame loads the kit and the compiled validators, slow on a loaded machine.
    const timer = setTimeout(() => reject(new Error(`${src} sent no result`)), 2 * SAFETY_NET_MS);
    window.addEventListener('message', function onMessage(event: MessageEvent) {
      if (event.source !== frame.contentWindow || event.data?.type !== 'csp-result') return;
      window.removeEventListener('message', onMessage);
      clearTimeout(timer);
      frame.remove();
      resolve(event.data);
    });
    frame.src = src;
    document.body.append(frame);
  });
}

describe("compiled validators under Content-Security-Policy: script-src 'self'", () => {
  it('validate good and bad input with no CSP violation, where eval is blocked', async () => {
    const response = await fetch('/test/browser/fixtures/validate.csp.html');
    expect(response.headers.get('content-security-policy')).to.contain("script-src 'self'");

    const { result, error } = await loadFrame('/test/browser/fixtures/validate.csp.html');
    expect(error, error).to.equal(undefined);
    const r = result!;
    expect(r.evalBlocked, 'the page must enforce the CSP (new Function is blocked)').to.equal(true);
    expect(r.probeReported, 'the securitypolicyviolation listener works').to.equal(true);
    expect(r.violationsWhileValidating).to.deep.equal([]);

    expect(r.admitted).to.equal(true);
    expect(r.good).to.deep.equal({ valid: true });
    expect(r.bad.valid).to.equal(false);
    expect(r.bad.issues!.map((i) => `${i.path} ${i.keyword}`).sort()).to.deep.equal([
      '/extra additionalProperties',
      '/ids minItems',
      '/mode enum',
      '/until format',
    ]);
    expect(r.rawGood).to.equal(true);
    expect(r.rawBad).to.equal(false);
    expect(r.output.valid).to.equal(false);
    expect(r.output.issues![0].path).to.equal('/disabled');
  });
});
