/**
 * A run of the local adapter in the prompt format, on the tool loop every adapter runs
 * (../shared/loop.ts): each model step is constrained by a grammar from the live tools and parsed
 * into text, reasoning and `<tool_call>`s; the loop runs the calls through `req.callTool` and
 * answers a malformed one with the parser's words, which the model reads in its next step.
 */
import type { AgentRunRequest, AgentStreamPart } from '../../chat/types.js';
import { AdapterError, errorText, toolLoop, type Step } from '../shared/loop.js';
import { toolCallGrammarSliced, type GrammarMemo } from './grammar.js';
import { parseOutput, toolsPrompt, toTurns, VisibleText } from './tool-format.js';
import type { LocalAdapterOptions, LocalSession } from './types.js';

/** One model step in the prompt format; also the rest of a Prompt API run whose native tools were refused. */
export function formatStep(s: Pick<LocalSession, 'generate'>, options: LocalAdapterOptions, marker: string): Step {
  const first = options.toolChoice ?? 'auto';
  let n = 0;
  // The run's steps mostly see the same tools: their grammar is built once.
  const memo: GrammarMemo = {};
  return async function* ({ messages, tools, agent, signal }) {
    // A forced (or forbidden) call applies to the run's first step; later steps may answer in text.
    const choice = n++ && first != 'none' ? 'auto' : first;
    const visible = new VisibleText();
    // Text shown so far and not yet passed on: the engine streams faster than a slow reader takes.
    let pending = '';
    let wake = () => {};
    let done = false;
    // Many large tools take tens of milliseconds to build for: built in slices the page runs between.
    const grammar = await toolCallGrammarSliced(tools, choice, memo);
    const generation = s
      .generate({
        turns: toTurns(messages, [agent?.instructions, toolsPrompt(tools)].filter(Boolean).join('\n\n'), { tools, marker, maxToolOutputChars: options.maxToolOutputChars }),
        tools,
        grammar,
        toolChoice: tools.length ? choice : 'none',
        maxTokens: options.maxTokens ?? 512,
        temperature: options.temperature ?? 0.2,
        signal,
        onText(delta) {
          pending += visible.push(delta);
          wake();
        },
      })
      .finally(() => {
        done = true;
        wake();
      });
    generation.catch(() => {});
    while (pending || !done) {
      if (pending) {
        const delta = pending;
        pending = '';
        yield { type: 'text-delta', delta };
      } else await new Promise<void>((r) => (wake = r));
    }
    let output: string;
    try {
      output = await generation;
    } catch (e) {
      // An engine's failure is the request's as far as the widget can tell (the Prompt API's carry their code).
      throw signal.aborted ? e : new AdapterError(e instanceof AdapterError ? e.code : 'bad_request', `The model stopped: ${errorText(e)}`);
    }
    const { text, reasoning, calls } = parseOutput(output);
    if (reasoning) yield { type: 'reasoning', text: reasoning };
    // Text the stream held back (after a tool call) comes out now that the turn is whole.
    const rest = visible.push('', text);
    if (rest) yield { type: 'text-delta', delta: rest };
    for (const c of calls) {
      yield c.ok
        ? { type: 'tool-call', id: '', name: c.name, input: c.input }
        : { type: 'tool-call', id: '', name: c.name ?? 'invalid_tool_call', input: { raw: c.raw.slice(0, 2000) }, invalid: c.error };
    }
  };
}

export async function* steps(req: AgentRunRequest, s: LocalSession, options: LocalAdapterOptions, marker: string): AsyncGenerator<AgentStreamPart> {
  let id: string | undefined;
  const loop = toolLoop(req, formatStep(s, options, marker), req.agent?.maxSteps);
  // A run is one assistant message, however many steps it takes: the loop's later message starts are left out.
  for await (const p of loop) {
    if (p.type == 'message-start' && (id ??= p.messageId) != p.messageId) continue;
    yield 'messageId' in p ? { ...p, messageId: id! } : p;
  }
}
