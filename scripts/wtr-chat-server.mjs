// The app's server for the browser tests of the cloud pair: web-test-runner's dev server mounts
// createChatHandler (the real one, loaded from the TypeScript source through tsx) at
// /__chat/api, and the handler's provider is a loopback Chat Completions server (127.0.0.1,
// port 0) that plays the devices script step by step from the conversation it is sent: read the
// rows, disable the offline ones (a destructive call the person approves in the page), report.
import { createServer } from 'node:http';

let provider;
let handler;

/** What the provider was asked, newest last (GET /__chat/requests reads it). */
const requests = [];

function chunk(delta, finish = null) {
  return `data: ${JSON.stringify({ id: 'chatcmpl-devices', object: 'chat.completion.chunk', created: 0, model: 'devices-script', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function call(id, name, args) {
  const text = JSON.stringify(args);
  const parts = [chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] })];
  for (let i = 0; i < text.length; i += 4) parts.push(chunk({ tool_calls: [{ index: 0, function: { arguments: text.slice(i, i + 4) } }] }));
  return [...parts, chunk({}, 'tool_calls'), 'data: [DONE]\n\n'];
}

function say(text) {
  return [chunk({ role: 'assistant', content: '' }), ...text.match(/.{1,5}/gs).map((t) => chunk({ content: t })), chunk({}, 'stop'), 'data: [DONE]\n\n'];
}

/** The next step of the script, from the request alone (the provider keeps no state). */
function nextStep(body) {
  const tools = (body.tools ?? []).map((t) => t.function.name);
  const answers = body.messages.filter((m) => m.role === 'tool');
  const rows = tools.find((n) => /rows/.test(n));
  const disable = tools.find((n) => /disable/.test(n));
  if (answers.length === 0) return call('call_rows', rows, {});
  if (answers.length === 1) {
    // The rows come back as untrusted data, inside the adapter's delimiters: take the JSON line.
    const line = answers[0].content.split('\n').find((l) => l.startsWith('['));
    const ids = JSON.parse(line).filter((d) => d.status === 'offline').map((d) => d.id);
    return call('call_disable', disable, { ids });
  }
  return say(/"code"/.test(answers[1].content) ? 'The devices were not disabled.' : 'Disabled the offline devices.');
}

async function start() {
  const server = createServer(async (req, res) => {
    const parts = [];
    for await (const c of req) parts.push(c);
    const body = JSON.parse(Buffer.concat(parts).toString() || '{}');
    requests.push({ headers: req.headers, body });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const c of nextStep(body)) res.write(c);
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Never what keeps the test runner alive.
  server.unref();
  provider = server;
  const { tsImport } = await import('tsx/esm/api');
  const { createChatHandler, toNodeListener } = await tsImport('../src/server/index.ts', import.meta.url);
  handler = toNodeListener(
    createChatHandler({
      provider: { kind: 'openai-compatible', baseUrl: `http://127.0.0.1:${server.address().port}/v1`, model: 'devices-script', apiKey: 'sk-test-server-only' },
      agents: [{ id: 'devices', instructions: 'You manage devices. (Server-side instructions.)' }],
    }),
  );
}

let ready;
export function chatServerMiddleware() {
  return async (ctx, next) => {
    if (ctx.path === '/__chat/requests') {
      ctx.body = requests.map((r) => ({ authorization: r.headers.authorization, body: r.body }));
      return undefined;
    }
    if (ctx.path === '/__chat/reset') {
      requests.length = 0;
      ctx.body = 'ok';
      return undefined;
    }
    // The same script as a same-origin OpenAI-compatible server, for the demo's "your own model" form.
    if (ctx.path === '/__chat/openai/v1/models') {
      ctx.body = { object: 'list', data: [{ id: 'devices-script', object: 'model' }] };
      return undefined;
    }
    if (ctx.path === '/__chat/openai/v1/chat/completions') {
      const parts = [];
      for await (const c of ctx.req) parts.push(c);
      const body = JSON.parse(Buffer.concat(parts).toString() || '{}');
      requests.push({ headers: ctx.req.headers, body });
      ctx.set('content-type', 'text/event-stream');
      ctx.body = nextStep(body).join('');
      return undefined;
    }
    if (ctx.path !== '/__chat/api') return next();
    ready ??= start();
    await ready;
    ctx.respond = false;
    await handler(ctx.req, ctx.res);
    return undefined;
  };
}

export function closeChatServer() {
  provider?.close();
}
