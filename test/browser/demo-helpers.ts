// Shared by the demo's browser tests: the page as `npm start` serves it, in an iframe of a given
// size, and clicks the browser makes itself (trusted input), which is what approvals accept.
import { waitUntil } from '../until.js';
import { sendMouse, setViewport } from '@web/test-runner-commands';
import type { AgentChatElement } from '../../src/chat/index.js';

export type Ctx = { timeout(ms: number): void };

export interface Demo {
  frame: HTMLIFrameElement;
  doc: Document;
  win: Window;
}

/**
 * Opens `src` in an iframe of `width` × `height` at the top left of a test page at least that big
 * (so a click on any point of the frame lands inside the browser's viewport), and waits for the
 * demo's own readiness mark.
 */
export async function openDemo(src = '/demo/index.html', { width = 1300, height = 900 } = {}): Promise<Demo> {
  await setViewport({ width: Math.max(width, 800), height: Math.max(height, 600) });
  const frame = document.createElement('iframe');
  frame.style.cssText = `position:fixed;left:0;top:0;width:${width}px;height:${height}px;border:0`;
  frame.src = src;
  document.body.append(frame);
  // documentElement is null while the frame navigates: the optional chain keeps the poll alive.
  await waitUntil(() => frame.contentDocument?.documentElement?.dataset.ready === 'true', `${src} did not get ready`, {
    timeout: 20000,
  });
  return { frame, doc: frame.contentDocument!, win: frame.contentWindow! };
}

/**
 * `waitUntil` with a safety net sized for a loaded machine (its default is one second): the tests
 * wait on conditions, and only a condition that never comes true should ever reach this.
 */
export function until(predicate: () => unknown, message: string, options: { timeout?: number } = {}): Promise<void> {
  return waitUntil(predicate, message, { timeout: 15000, ...options });
}

/** Resolves after the frame has painted twice: every requestAnimationFrame callback queued before has run. */
export function frames(win: Window, count = 2): Promise<void> {
  return new Promise((resolve) => {
    const step = (left: number) => (left === 0 ? resolve() : win.requestAnimationFrame(() => step(left - 1)));
    step(count);
  });
}

/** Whether the element's box lies wholly inside its frame's viewport. */
export function inViewport(el: Element): boolean {
  const r = el.getBoundingClientRect();
  const win = el.ownerDocument.defaultView!;
  return r.top >= 0 && r.left >= 0 && r.bottom <= win.innerHeight && r.right <= win.innerWidth;
}

/** A trusted click in the middle of `el` (inside `frame`), scrolling it into view only when it is not. */
export async function trustedClick(frame: HTMLIFrameElement, el: Element): Promise<void> {
  if (!inViewport(el)) el.scrollIntoView({ block: 'center' });
  const outer = frame.getBoundingClientRect();
  const box = el.getBoundingClientRect();
  await sendMouse({
    type: 'click',
    position: [Math.round(outer.left + box.left + box.width / 2), Math.round(outer.top + box.top + box.height / 2)],
  });
}

/**
 * Decides the chat card's pending approval as a person does: brings the card's button into view
 * (a person scrolls to it), waits until the approval guard has seen it there for its activation
 * delay, then clicks it for real. Scrolling restarts the delay, and the guard notices a scroll only
 * on its next animation frame, so readiness is read after two frames, never straight after the scroll.
 */
export async function decideInChat(demo: Demo, chat: AgentChatElement, part: 'approve' | 'deny'): Promise<void> {
  const button = () => chat.shadowRoot!.querySelector<HTMLElement>(`[part~="${part}"]`);
  await waitUntil(() => button(), `no ${part} button in the chat`, { timeout: 15000 });
  if (!inViewport(button()!)) button()!.scrollIntoView({ block: 'center' });
  await frames(demo.win);
  await chat.updateComplete;
  await waitUntil(() => button()?.getAttribute('aria-disabled') === 'false', `${part} never became active`, { timeout: 15000 });
  const el = button()!;
  if (!inViewport(el)) throw new Error(`${part} left the viewport`);
  await trustedClick(demo.frame, el);
}
