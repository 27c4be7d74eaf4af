/**
 * One run of the local adapter: model steps in the `<tool_call>` format, each constrained by a
 * grammar from the live tools, calls through `req.callTool`, malformed calls answered with words
 * the model reads in its next step. Loaded with the first run.
 */
import type { AgentMessage, AgentRunRequest, AgentStreamPart, AgentToolPart } from '../../chat/types.js';
import { newId } from './ids.js';
import { toolCallGrammar } from './grammar.js';
import { outputText, parseOutput, toolsPrompt, toTurns, VisibleText } from './tool-format.js';
import type { LocalAdapterOptions, LocalSession } from './types.js';

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

export async function* steps(req: AgentRunRequest, s: LocalSession, options: LocalAdapterOptions, marker: string): AsyncGenerator<AgentStreamPart> {
  const messageId = newId('msg');
  yield { type: 'message-start', messageId };
  const current: AgentMessage = { id: messageId, role: 'assistant', parts: [] };
  const maxSteps = Math.max(1, req.agent?.maxSteps ?? 8);
  const first = options.toolChoice ?? 'auto';
  for (let step = 0; step < maxSteps; step++) {
    if (req.signal.aborted) {
      yield { type: 'finish', reason: 'aborted' };
      return;
    }
    const tools = req.tools; // fresh every step: the page's tools change
    const system = [req.agent?.instructions ?? '', toolsPrompt(tools)].filter(Boolean).join('\n\n');
    const turns = toTurns([...req.messages, current], system, { tools, marker, maxToolOutputChars: options.maxToolOutputChars });
    const choice = step === 0 || first === 'none' ? first : 'auto';
    const visible = new VisibleText();
    const pending: string[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    const generation = s
      .generate({
        turns,
        tools,
        grammar: toolCallGrammar(tools, choice),
        toolChoice: tools.length ? choice : 'none',
        maxTokens: options.maxTokens ?? 512,
        temperature: options.temperature ?? 0.2,
        signal: req.signal,
        onText(delta) {
          const shown = visible.push(delta);
          if (shown) pending.push(shown);
          wake?.();
        },
      })
      .finally(() => {
        done = true;
        wake?.();
      });
    generation.catch(() => {});
    for (;;) {
      while (pending.length) yield { type: 'text-delta', messageId, delta: pending.shift()! };
      if (done) break;
      await new Promise<void>((r) => (wake = r));
      wake = undefined;
    }
    let output: string;
    try {
      output = await generation;
    } catch (e) {
      if (req.signal.aborted) yield { type: 'finish', reason: 'aborted' };
      else yield { type: 'error', error: `The model stopped: ${messageOf(e)}` };
      return;
    }
    const parsed = parseOutput(output);
    if (parsed.reasoning) {
      yield { type: 'reasoning', messageId, text: parsed.reasoning };
      current.parts.push({ type: 'reasoning', text: parsed.reasoning });
    }
    // Text the stream held back (after a tool call) comes out now that the turn is whole.
    if (parsed.text.startsWith(visible.shown) && parsed.text.length > visible.shown.length) {
      yield { type: 'text-delta', messageId, delta: parsed.text.slice(visible.shown.length) };
    }
    if (parsed.text) current.parts.push({ type: 'text', text: parsed.text });

    for (const call of parsed.calls) {
      const id = newId('call');
      const known = call.ok ? tools.find((t) => t.name === call.name) : undefined;
      const name = call.name ?? 'invalid_tool_call';
      const input = call.ok ? call.input : { raw: call.raw.slice(0, 2000) };
      yield { type: 'tool-call', messageId, id, name, input };
      const part: AgentToolPart = { type: 'tool', id, name, input, state: 'running' };
      current.parts.push(part);
      let problem: string | undefined;
      if (!call.ok) problem = call.error;
      else if (!known) problem = `There is no tool "${call.name}". The tools are: ${tools.map((t) => t.name).join(', ') || 'none'}.`;
      if (problem) {
        // The model reads this in its next step and can correct itself.
        Object.assign(part, { state: 'error', error: problem });
        yield { type: 'tool-error', id, error: problem };
        continue;
      }
      const result = await req.callTool({ id, name, input });
      if (result.isError) {
        const text = outputText({ ...result, isError: false });
        Object.assign(part, { state: 'error', error: text, output: result });
        yield { type: 'tool-error', id, error: text };
      } else {
        Object.assign(part, { state: 'done', output: result });
        yield { type: 'tool-result', id, output: result };
      }
      if (req.signal.aborted) break;
    }
    yield { type: 'step-finish', step };
    if (req.signal.aborted) {
      yield { type: 'finish', reason: 'aborted' };
      return;
    }
    if (!parsed.calls.length) {
      yield { type: 'finish', reason: 'stop' };
      return;
    }
  }
  yield { type: 'finish', reason: 'max-steps' };
}

