/**
 * Reads an `<agent-capability>`'s contract from its markup: the contract attributes and its schema
 * scripts, through the same declaration rules the compiler applies to the same markup, so a token the
 * compiler wrote for it matches. Part of the element's lazy chunk (declared.ts).
 */
import {
  CONTRACT_ATTRIBUTES,
  contractFromDeclaration,
  schemaTextsFromScripts,
  type CapabilityDeclaration,
  type DeclarationResult,
} from '../core/declaration.js';

export function declaredContract(element: Element, placementView: string | null): DeclarationResult {
  const attr = (name: string) => element.getAttribute(name);
  const texts = schemaTextsFromScripts(
    Array.from(element.querySelectorAll(':scope > script'), (script) => ({
      type: script.getAttribute('type'),
      dataSchema: script.getAttribute('data-schema'),
      text: script.textContent ?? '',
    })),
    attr('name'),
  );
  // Every contract attribute by its camelCase field (`timeout-ms` → timeoutMs); `untrusted-output` is a flag.
  const declaration: Record<string, unknown> = {
    placementView,
    inputSchemaText: texts.inputSchemaText,
    outputSchemaText: texts.outputSchemaText,
  };
  for (const name of CONTRACT_ATTRIBUTES) declaration[name.replace(/-(.)/g, (_, c: string) => c.toUpperCase())] = attr(name);
  declaration.untrustedOutput = element.hasAttribute('untrusted-output');
  const result = contractFromDeclaration(declaration as unknown as CapabilityDeclaration);
  const problems = [...texts.problems, ...(result.ok ? [] : result.problems)];
  return problems.length || !result.ok ? { ok: false, problems } : result;
}
