// Entry of both demo pages: the authority from the compiled manifest, the app, the agent panel.
import { createCompilerAuthority } from './kit.js';
import { manifest, validators } from './generated/agent-surface.manifest.js';
import { startDeviceApp } from './app.js';
import { mountAgentPanel } from './agent-panel.js';

const surface = document.querySelector('agent-surface');
// Only what `agent-surface compile` authorized can register; a forged or stale token is refused.
surface.authority = createCompilerAuthority({ manifest, validators });
export const app = startDeviceApp(surface);
await surface.updateComplete;
export const panel = mountAgentPanel(document.querySelector('#agent-panel'), surface);
document.documentElement.dataset.ready = 'true';
