/**
 * A real inference engine behind an OpenAI-compatible endpoint on loopback: node-llama-cpp's
 * bundled llama.cpp runs the tiny generated model (scripts/tiny-gguf.mjs). When the request offers
 * tools and the conversation ends with the person's message, JSON-schema grammars (the tool's name
 * from an enum, then its input under the tool's own schema) make the engine emit a tool call; otherwise it writes
 * a short text under a letters-only grammar. Text streams token by token as the engine produces
 * it; a call's arguments stream in small deltas once the engine has finished them (the name has
 * to lead the call).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getLlama, LlamaCompletion, LlamaLogLevel, type Llama, type LlamaContext, type LlamaModel } from 'node-llama-cpp';
import { writeTinyGguf } from '../../../scripts/tiny-gguf.mjs';

interface Msg {
  role: string;
  content: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}
interface Tool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

export interface EngineServer {
  url: string;
  /** What the engine generated, per request. */
  generations: string[];
  close(): Promise<void>;
}

/** ChatML, as the model's template says (the engine adds nothing of its own). */
function prompt(messages: Msg[], tools: Tool[]): string {
  let out = '';
  const sys = tools.length ? `Tools: ${tools.map((t) => t.function.name).join(', ')}` : '';
  if (sys) out += `<|im_start|>system\n${sys}<|im_end|>\n`;
  for (const m of messages) {
    const content = m.tool_calls ? m.tool_calls.map((c) => `${c.function.name}(${c.function.arguments})`).join('\n') : (m.content ?? '');
    out += `<|im_start|>${m.role === 'tool' ? 'user' : m.role}\n${content.slice(-400)}<|im_end|>\n`;
  }
  return `${out}<|im_start|>assistant\n`;
}

export async function startEngineServer(dir: string): Promise<EngineServer> {
  const path = await writeTinyGguf(join(dir, 'tiny.gguf'));
  const llama: Llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
  const model: LlamaModel = await llama.loadModel({ modelPath: path });
  // One thread: llama.cpp's spinning workers crawl on a shared two-core machine.
  const context: LlamaContext = await model.createContext({ contextSize: 4096, threads: 1 });
  const sequence = context.getSequence();
  const textGrammar = await llama.createGrammar({ grammar: 'root ::= [A-Za-z] [a-z ]{4,30} "."' });
  const generations: string[] = [];
  let busy = Promise.resolve();

  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"tiny","object":"model"}]}');
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { messages: Msg[]; tools?: Tool[]; stream?: boolean };
    const tools = body.tools ?? [];
    const wantCall = tools.length > 0 && body.messages[body.messages.length - 1]?.role === 'user';
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const id = `chatcmpl-${generations.length}`;
    const send = (delta: Record<string, unknown>, finish: string | null = null) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'tiny', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    // One generation at a time on the one sequence.
    const run = busy.then(async () => {
      await sequence.clearHistory();
      const completion = new LlamaCompletion({ contextSequence: sequence });
      send({ role: 'assistant', content: '' });
      if (wantCall) {
        // Two constrained generations: which tool (an enum of the names), then its input (the
        // tool's own schema). node-llama-cpp's grammar enforces types, enums and required keys,
        // not numeric ranges: the registry's validation stays the safety net.
        const pick = await llama.createGrammarForJsonSchema({
          type: 'object',
          properties: { name: { enum: tools.map((t) => t.function.name) } },
          required: ['name'],
        } as never);
        const chosen = await completion.generateCompletion(prompt(body.messages, tools), { grammar: pick, maxTokens: 200, temperature: 0 });
        const name = (JSON.parse(chosen) as { name: string }).name;
        const tool = tools.find((t) => t.function.name === name)!;
        await sequence.clearHistory();
        const argsGrammar = await llama.createGrammarForJsonSchema(tool.function.parameters as never);
        const argsText = await completion.generateCompletion(`${prompt(body.messages, tools)}${name}(`, { grammar: argsGrammar, maxTokens: 300, temperature: 0 });
        const text = JSON.stringify({ name, arguments: JSON.parse(argsText) });
        generations.push(text);
        const call = JSON.parse(text) as { name: string; arguments: unknown };
        const args = JSON.stringify(call.arguments);
        send({ tool_calls: [{ index: 0, id: `call_${generations.length}`, type: 'function', function: { name: call.name, arguments: '' } }] });
        for (let i = 0; i < args.length; i += 3) send({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + 3) } }] });
        send({}, 'tool_calls');
      } else {
        const text = await completion.generateCompletion(prompt(body.messages, tools), {
          grammar: textGrammar,
          maxTokens: 40,
          temperature: 0,
          onTextChunk: (t) => void send({ content: t }),
        });
        generations.push(text);
        send({}, 'stop');
      }
      res.end('data: [DONE]\n\n');
    });
    busy = run.catch(() => {});
    try {
      await run;
    } catch (e) {
      res.end(`data: ${JSON.stringify({ error: { message: String(e), type: 'server_error' } })}\n\n`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    generations,
    close: async () => {
      await new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
