/** `findTool`: the tool a scripted step names, in a module of its own (the scripted adapter's player loads lazily). */
import { encodeWireName } from '../core/wire-names.js';
import type { ToolDescriptor } from './types.js';

/** The tool a step names: by wire name, by capability id (its encoding), or an instance of it. */
export function findTool(tools: readonly ToolDescriptor[], wanted: string): ToolDescriptor | undefined {
  const exact = tools.find((t) => t.name === wanted);
  if (exact) return exact;
  let encoded: string | undefined;
  try {
    encoded = encodeWireName(wanted);
  } catch {
    encoded = undefined;
  }
  return (
    tools.find((t) => t.name === encoded) ??
    tools.find((t) => encoded !== undefined && t.name.startsWith(`${encoded}_at_`)) ??
    // A prefixed WebMCP name (`<prefix>view_devices__rows`, `<prefix>view_devices__rows_at_main`),
    // or a description naming the id.
    tools.find((t) => encoded !== undefined && (t.name.endsWith(encoded) || t.name.includes(`${encoded}_at_`))) ??
    tools.find((t) => typeof t.description === 'string' && t.description.includes(`id: ${wanted}`))
  );
}
