// Entry of both demo pages: the authority from the compiled manifest, the app, the agent panel.
import { createCompilerAuthority } from './kit.js';
import { manifest, validators } from './generated/agent-surface.manifest.js';
import { startDeviceApp } from './app.js';
import { mountAgentPanel } from './agent-panel.js';
import { fleetAgent, scriptedAdapter, withoutConsumer } from './chat-agent.js';
import { mountModelForm } from './model-form.js';

const surface = document.querySelector('agent-surface');
// Only what `agent-surface compile` authorized can register; a forged or stale token is refused.
surface.authority = createCompilerAuthority({ manifest, validators });
// The projections the page's own markup may start, and the consumer id each carries: an injected
// <agent-webmcp> with another consumer id (or on a page without this line) publishes nothing.
surface.consumers = { webmcp: { consumer: 'webmcp' } };
export const app = startDeviceApp(surface);
await surface.updateComplete;
export const panel = mountAgentPanel(document.querySelector('#agent-panel'), surface);
const chat = document.querySelector('agent-chat');
if (chat) {
  chat.agent = fleetAgent;
  chat.adapters = [scriptedAdapter];
  // A form under the chat adds an OpenAI-compatible server of the person's own to the switcher.
  mountModelForm(chat.closest('section') ?? chat.parentElement, chat, scriptedAdapter);
  // The chat asks for approval in its own cards; the dialog is for the other agents (WebMCP).
  const confirm = document.querySelector('agent-confirm');
  if (confirm) confirm.registry = withoutConsumer(surface.registry, chat.consumer);
}
document.documentElement.dataset.ready = 'true';
