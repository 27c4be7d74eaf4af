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

// Every contract attribute with its camelCase field (`timeout-ms` → timeoutMs), worked out once
// rather than for each element.
const FIELDS = CONTRACT_ATTRIBUTES.map((name) => [name, name.replace(/-(.)/g, (_, c: string) => c.toUpperCase())] as const);

export function declaredContract(element: Element, placementView: string | null): DeclarationResult {
  const attr = (name: string) => element.getAttribute(name);
  // The element's own `<script>` children (what `:scope > script` selects), without a selector query.
  const scripts = [];
  for (const child of element.children) {
    if (child.localName === 'script') {
      scripts.push({ type: child.getAttribute('type'), dataSchema: child.getAttribute('data-schema'), text: child.textContent ?? '' });
    }
  }
  const texts = schemaTextsFromScripts(scripts, attr('name'));
  // Every contract attribute by its camelCase field; `untrusted-output` is a flag.
  const declaration: Record<string, unknown> = {
    placementView,
    inputSchemaText: texts.inputSchemaText,
    outputSchemaText: texts.outputSchemaText,
  };
  for (const [name, field] of FIELDS) declaration[field] = attr(name);
  declaration.untrustedOutput = element.hasAttribute('untrusted-output');
  const result = contractFromDeclaration(declaration as unknown as CapabilityDeclaration);
  const problems = [...texts.problems, ...(result.ok ? [] : result.problems)];
  return problems.length || !result.ok ? { ok: false, problems } : result;
}
