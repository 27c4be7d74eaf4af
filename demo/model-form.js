// The demo's "your own model" form: an OpenAI-compatible server URL and model (Ollama, llama.cpp's
// llama-server, LM Studio, vLLM or a hosted service), kept in localStorage so the page remembers
// it. An API key is kept in memory only, unless the person ticks "Remember the key on this
// device"; unticking (or Forget) removes a stored key. The adapter joins the chat's switcher
// beside the scripted agent.
import { createOpenAICompatibleAdapter } from './kit.js';

export const STORAGE_KEY = 'agent-surface-demo:openai-compatible';

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    return saved && typeof saved.baseUrl === 'string' && saved.baseUrl && typeof saved.model === 'string' && saved.model ? saved : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Mounts the form into `host` and keeps `chat.adapters` as `[scripted, yourModel?]`.
 * @param {HTMLElement} host
 * @param {{ adapters: unknown }} chat
 * @param {import('../src/chat/types.ts').AgentAdapter} scripted
 */
export function mountModelForm(host, chat, scripted) {
  const form = document.createElement('form');
  form.className = 'model-form';
  form.setAttribute('aria-label', 'Your own model server');
  form.innerHTML = `
    <details>
      <summary>Use your own model (OpenAI-compatible server)</summary>
      <label>Server URL <input name="baseUrl" type="url" required placeholder="http://localhost:11434/v1" autocomplete="url"></label>
      <label>Model <input name="model" required placeholder="qwen3:4b" autocomplete="off"></label>
      <label>API key (optional) <input name="apiKey" type="password" autocomplete="off" placeholder="not needed for local servers"></label>
      <label class="remember"><input name="remember" type="checkbox"> Remember the key on this device</label>
      <p class="hint">The URL and model are kept in this browser. The key is sent only to that server and kept in memory unless you tick the box. The server must allow this page's origin (CORS).</p>
      <div class="buttons"><button type="submit">Use this server</button> <button type="button" name="forget">Forget</button></div>
      <p class="status" role="status" aria-live="polite"></p>
    </details>`;
  host.append(form);
  const field = (name) => form.elements.namedItem(name);
  const status = form.querySelector('.status');

  const use = ({ baseUrl, model, apiKey }) => {
    const adapter = createOpenAICompatibleAdapter({ baseUrl, model, apiKey: apiKey || undefined, label: `${model} (your server)` });
    chat.adapters = [scripted, adapter];
    status.textContent = `Added "${model}" at ${baseUrl} to the chat's agent list.`;
    return adapter;
  };

  const saved = load();
  if (saved) {
    field('baseUrl').value = saved.baseUrl;
    field('model').value = saved.model;
    if (saved.apiKey) {
      field('apiKey').value = saved.apiKey;
      field('remember').checked = true;
    }
    use(saved);
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const config = { baseUrl: field('baseUrl').value.trim(), model: field('model').value.trim(), apiKey: field('apiKey').value };
    // The adapter refuses an empty URL or model (spaces alone pass the form's own check).
    if (!config.baseUrl || !config.model) return void (status.textContent = 'Give the server URL and the model name.');
    // The key goes to storage only when the person asked for it.
    const stored = { baseUrl: config.baseUrl, model: config.model, ...(field('remember').checked && config.apiKey ? { apiKey: config.apiKey } : {}) };
    localStorage.setItem(STORAGE_KEY, JSON.stringify(stored));
    form.adapter = use(config);
  });
  // Unticked: the stored key goes at once (the URL and model stay), not only at the next save; the
  // server in use keeps its key in memory for this visit.
  field('remember').addEventListener('change', () => {
    const stored = load();
    if (field('remember').checked || !stored?.apiKey) return;
    const { apiKey: _forgotten, ...rest } = stored;
    localStorage.setItem(STORAGE_KEY, JSON.stringify(rest));
    status.textContent = 'The key is no longer stored on this device.';
  });
  field('forget').addEventListener('click', () => {
    localStorage.removeItem(STORAGE_KEY);
    form.reset();
    chat.adapters = [scripted];
    status.textContent = 'Forgotten: only the scripted agent is left.';
  });
  return form;
}
