/**
 * A frame of another origin than the page (localhost ↔ 127.0.0.1), allowed the `tools` feature, that
 * answers what it sees of the page's WebMCP tools through the draft's `getTools({ fromOrigins })`
 * (fixtures/exposed-peer.html): how a test checks what `exposedTo` really opens on the native host.
 */
/** The page's own origin under its other name (localhost ↔ 127.0.0.1): a frame of another origin. */
export function otherOrigin(): string {
  const host = location.hostname === '127.0.0.1' ? 'localhost' : '127.0.0.1';
  return `${location.protocol}//${host}:${location.port}`;
}

/** A frame of `otherOrigin()` allowed the `tools` feature, answering what it sees of this page's tools. */
export async function peerFrame(): Promise<{ ask(call?: string): Promise<{ names?: string[]; result?: unknown; error?: string }>; remove(): void }> {
  const frame = document.createElement('iframe');
  frame.allow = 'tools';
  const ready = new Promise<void>((resolve) => {
    window.addEventListener('message', function onMessage(event) {
      if (event.source !== frame.contentWindow || !event.data?.ready) return;
      window.removeEventListener('message', onMessage);
      resolve();
    });
  });
  frame.src = new URL('/test/webmcp/fixtures/exposed-peer.html', otherOrigin()).href;
  document.body.append(frame);
  await ready;
  let asked = 0;
  return {
    ask(call?: string) {
      const id = ++asked;
      return new Promise((resolve) => {
        window.addEventListener('message', function onMessage(event) {
          if (event.source !== frame.contentWindow || event.data?.id !== id) return;
          window.removeEventListener('message', onMessage);
          resolve(event.data);
        });
        frame.contentWindow!.postMessage({ id, fromOrigins: [location.origin], call }, otherOrigin());
      });
    },
    remove: () => frame.remove(),
  };
}

