/**
 * Chrome's built-in model through the Prompt API (`LanguageModel`). The browser downloads and
 * keeps the weights; `create({ monitor })` reports the download. Where the browser runs tools
 * natively (its `tools` option) a run goes through that loop (./prompt-api-tools.ts); elsewhere
 * tool calls use the same `<tool_call>` format as the other engines, constrained by the API's
 * `responseConstraint` (a JSON Schema built from the live tools).
 */
import type { ToolDescriptor } from '../../../chat/types.js';
import { CALL_CLOSE, CALL_OPEN } from '../ids.js';
import { LANGUAGES } from '../detect.js';
import { why } from '../words.js';
import { ask, probeTools, promptError } from './prompt-api-session.js';
import { declaredLoop, executeLoop } from './prompt-api-tools.js';
import { steps } from '../steps.js';
import type { GenerateRequest, LanguageModelLike, LanguageModelSessionLike, LocalEngine, LocalSession } from '../types.js';

/** The reply as JSON: either text or one call of a live tool with arguments following its schema. */
export function responseSchema(tools: readonly ToolDescriptor[], choice: GenerateRequest['toolChoice']): object | undefined {
  if (!tools.length || choice === 'none') return undefined;
  const call = {
    type: 'object',
    properties: {
      tool_call: {
        anyOf: tools.map((t) => ({
          type: 'object',
          properties: { name: { const: t.name }, arguments: t.inputSchema },
          required: ['name', 'arguments'],
          additionalProperties: false,
        })),
      },
    },
    required: ['tool_call'],
    additionalProperties: false,
  };
  const reply = { type: 'object', properties: { reply: { type: 'string' } }, required: ['reply'], additionalProperties: false };
  return choice === 'required' ? call : { anyOf: [reply, call] };
}

/**
 * The constrained JSON reply as the `<tool_call>` format's text. JSON that does not parse (a reply
 * cut off at the token limit) becomes an unterminated call, which the parser turns into words for
 * the model instead of showing it as an answer.
 */
export function fromJsonReply(json: string): string {
  try {
    const v = JSON.parse(json) as { reply?: unknown; tool_call?: unknown };
    if (typeof v.reply === 'string') return v.reply;
    if (v.tool_call !== undefined) return `${CALL_OPEN}\n${JSON.stringify(v.tool_call)}\n${CALL_CLOSE}`;
  } catch {
    // fall through
  }
  return `${CALL_OPEN}\n${json}`;
}

/** Chrome's built-in model as a session (the adapter checks `availability()` itself, at once). */
export async function loadPromptApi(lm: LanguageModelLike, { signal, progress }: Parameters<LocalEngine['load']>[1]): Promise<LocalSession> {
  // Creating the first session is what downloads the model; it stays open so the browser keeps it loaded.
  let base: LanguageModelSessionLike;
  try {
    base = await lm.create({
      ...LANGUAGES,
      signal,
      monitor(m: EventTarget) {
        m.addEventListener('downloadprogress', (e) => {
          const { loaded = 0, total = 1 } = e as Event & { loaded?: number; total?: number };
          // The current API reports 0..1; early builds reported bytes with a total.
          progress({ phase: 'download', progress: total > 1 ? loaded / total : loaded });
        });
      },
    });
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    const name = (e as DOMException)?.name;
    throw new Error(
      name === 'QuotaExceededError'
        ? "Not enough disk space for Chrome's built-in model."
        : name === 'NotAllowedError'
          ? 'Chrome needs a click on the page before it downloads its built-in model.'
          : `Chrome's built-in model could not start (${why(e)}).`,
    );
  }
  const probe = await probeTools(lm);
  // Which native tool design runs; none once the browser has refused it (for this and later runs).
  let native = probe.availability !== 'unavailable' ? probe.design : undefined;
  const session: LocalSession = {
    async generate(req: GenerateRequest): Promise<string> {
      const turns = req.turns;
      try {
        const schema = responseSchema(req.tools, req.toolChoice);
        const options = { signal: req.signal };
        // A browser that does not know `responseConstraint` ignores it and writes free text,
        // in the prompt format the system turn describes: read as such, not as JSON.
        let constrained = false;
        if (schema) Object.defineProperty(options, 'responseConstraint', { get: () => ((constrained = true), schema) });
        // A JSON reply is shown only once it is whole (as text, or as a call).
        let text = '';
        for await (const p of ask(lm, { ...LANGUAGES, signal: req.signal, initialPrompts: turns.slice(0, -1) }, turns.at(-1)?.content ?? '', options, !!schema)) {
          if (p.type !== 'text-delta') continue;
          text += p.delta;
          if (!schema) req.onText(p.delta);
        }
        if (constrained) text = fromJsonReply(text);
        if (schema) req.onText(text);
        return text;
      } catch (e) {
        throw promptError(e, req.signal);
      }
    },
    dispose: () => base.destroy(),
  };
  if (native) {
    const refused = (e: unknown) => {
      if (!native) return;
      native = undefined;
      console.warn(`Chrome's built-in model refused its native tools (${(e as Error)?.name}: ${(e as Error)?.message}); tool calls use the <tool_call> prompt format from now on.`);
    };
    // The browser's loop cannot be made to call a tool: a forced first call takes the prompt format.
    session.run = (req, options, marker) =>
      !native || options.toolChoice === 'required' ? steps(req, session, options, marker) : (native === 'execute' ? executeLoop : declaredLoop)(lm, req, options, marker, { generate: session.generate, refused });
  }
  return session;
}
