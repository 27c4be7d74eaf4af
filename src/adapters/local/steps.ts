/**
 * One run of the local adapter: model steps in the `<tool_call>` format, each constrained by a
 * grammar from the live tools, calls through `req.callTool`, malformed calls answered with words
 * the model reads in its next step. Loaded with the first run.
 */
import type { AgentMessage, AgentRunRequest, AgentStreamPart, AgentToolPart } from '../../chat/types.js';
import type { AdapterError } from '../shared/errors.js';
import { messageOf, newId } from './ids.js';
import { toolCallGrammar } from './grammar.js';
import { outputText, parseOutput, toolsPrompt, toTurns, VisibleText } from './tool-format.js';
import type { LocalAdapterOptions, LocalSession } from './types.js';

export async function* steps(req: AgentRunRequest, s: LocalSession, options: LocalAdapterOptions, marker: string): AsyncGenerator<AgentStreamPart> {
  const { signal, agent } = req;
  const messageId = newId('msg');
  yield { type: 'message-start', messageId };
  const current: AgentMessage = { id: messageId, role: 'assistant', parts: [] };
  const first = options.toolChoice ?? 'auto';
  for (let step = 0; step < Math.max(1, agent?.maxSteps ?? 8); step++) {
    if (signal.aborted) break;
    const tools = req.tools; // fresh every step: the page's tools change
    const choice = step && first != 'none' ? 'auto' : first;
    const visible = new VisibleText();
    // Text shown so far and not yet passed on: the engine streams faster than a slow reader takes.
    let pending = '';
    let wake = () => {};
    let done = false;
    const generation = s
      .generate({
        turns: toTurns([...req.messages, current], [agent?.instructions, toolsPrompt(tools)].filter(Boolean).join('\n\n'), {
          tools,
          marker,
          maxToolOutputChars: options.maxToolOutputChars,
        }),
        tools,
        grammar: toolCallGrammar(tools, choice),
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
        yield { type: 'text-delta', messageId, delta };
      } else await new Promise<void>((r) => (wake = r));
    }
    let output: string;
    try {
      output = await generation;
    } catch (e) {
      if (signal.aborted) break;
      yield { type: 'error', error: `The model stopped: ${messageOf(e)}`, ...((e as AdapterError)?.name === 'AdapterError' ? { code: (e as AdapterError).code } : {}) };
      return;
    }
    const { text, reasoning, calls } = parseOutput(output);
    if (reasoning) {
      yield { type: 'reasoning', messageId, text: reasoning };
      current.parts.push({ type: 'reasoning', text: reasoning });
    }
    // Text the stream held back (after a tool call) comes out now that the turn is whole.
    const rest = visible.push('', text);
    if (rest) yield { type: 'text-delta', messageId, delta: rest };
    if (text) current.parts.push({ type: 'text', text });

    for (const call of calls) {
      const id = newId('call');
      const name = call.name ?? 'invalid_tool_call';
      const input = call.ok ? call.input : { raw: call.raw.slice(0, 2000) };
      yield { type: 'tool-call', messageId, id, name, input };
      const part: AgentToolPart = { type: 'tool', id, name, input, state: 'running' };
      current.parts.push(part);
      // Words the model reads in its next step, so it can correct itself.
      const problem = !call.ok
        ? call.error
        : tools.some((t) => t.name == name)
          ? ''
          : `There is no tool "${name}". The tools are: ${tools.map((t) => t.name).join(', ') || 'none'}.`;
      const output = problem ? undefined : await req.callTool({ id, name, input });
      const error = problem || (output!.isError ? outputText(output!) : '');
      Object.assign(part, { state: error ? 'error' : 'done', output, ...(error ? { error } : {}) });
      yield error ? { type: 'tool-error', id, error } : { type: 'tool-result', id, output: output! };
      if (signal.aborted) break;
    }
    yield { type: 'step-finish', step };
    if (!calls.length && !signal.aborted) {
      yield { type: 'finish', reason: 'stop' };
      return;
    }
  }
  yield { type: 'finish', reason: signal.aborted ? 'aborted' : 'max-steps' };
}
