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
  type SchemaScriptInfo,
} from '../core/declaration.js';
import type { CapabilityContract } from '../core/types.js';
import { deepFreeze, remember } from '../core/util.js';

// Every contract attribute with its camelCase field (`timeout-ms` → timeoutMs), worked out once
// rather than for each element.
const FIELDS = CONTRACT_ATTRIBUTES.map((name) => [name, name.replace(/-(.)/g, (_, c: string) => c.toUpperCase())] as const);

/** A contract read from markup (deep-frozen once elements with the same markup share it) and its JSON. */
export type DeclaredContract = { ok: true; contract: CapabilityContract; json: string } | { ok: false; problems: string[] };

/**
 * Contracts already read, by everything they were read from. A repeated view (a table of a thousand
 * rows) declares one contract a thousand times: the rules run once, not once per row. Bounded, and
 * markup whose inputs are large is read each time rather than kept.
 */
const read = new Map<string, DeclaredContract & { ok: true }>();
const MEMO_ENTRIES = 256;
const MEMO_KEY_CHARS = 16_384;

/** The inputs and result of the last read, which the next element most often repeats (the next row). */
let last: { inputs: (string | null)[]; declared: DeclaredContract & { ok: true } } | undefined;

/** Whether `element` in `placementView` has exactly `inputs` (see below), read without building anything. */
function sameInputs(element: Element, placementView: string | null, inputs: (string | null)[]): boolean {
  if (inputs[0] !== placementView) return false;
  let i = 1;
  for (const [name] of FIELDS) if (element.getAttribute(name) !== inputs[i++]) return false;
  for (let child = element.firstElementChild; child; child = child.nextElementSibling) {
    if (child.localName !== 'script') continue;
    if (child.getAttribute('type') !== inputs[i] || child.getAttribute('data-schema') !== inputs[i + 1] || (child.textContent ?? '') !== inputs[i + 2]) return false;
    i += 3;
  }
  return i === inputs.length;
}

export function declaredContract(element: Element, placementView: string | null): DeclaredContract {
  // The same markup as the element read last (a row of a table after the row before it): its
  // contract, frozen by then, without building the key below.
  if (last && Object.isFrozen(last.declared.contract) && sameInputs(element, placementView, last.inputs)) return last.declared;
  // What the result depends on, and nothing else: the placement, each contract attribute as written,
  // and the element's own `<script>` children (what `:scope > script` selects, without a selector
  // query; walked by sibling, which is cheaper than iterating `children`).
  const inputs: (string | null)[] = [placementView];
  for (const [name] of FIELDS) inputs.push(element.getAttribute(name));
  for (let child = element.firstElementChild; child; child = child.nextElementSibling) {
    if (child.localName === 'script') inputs.push(child.getAttribute('type'), child.getAttribute('data-schema'), child.textContent ?? '');
  }
  const key = JSON.stringify(inputs);
  const known = read.get(key);
  // Frozen when it is first shared (freezing every contract read once would slow pages of distinct
  // ones), after checking that nothing changed it while only its first element had it.
  if (known && (Object.isFrozen(known.contract) || JSON.stringify(known.contract) === known.json)) {
    deepFreeze(known.contract);
    last = { inputs, declared: known };
    return known;
  }

  // Each script's type, data-schema and text follow the attributes in `inputs`.
  const scripts: SchemaScriptInfo[] = [];
  for (let i = FIELDS.length + 1; i < inputs.length; i += 3) scripts.push({ type: inputs[i], dataSchema: inputs[i + 1], text: inputs[i + 2]! });
  const texts = schemaTextsFromScripts(scripts, element.getAttribute('name'));
  // Every contract attribute by its camelCase field; `untrusted-output` is a flag.
  const declaration: Record<string, unknown> = {
    placementView,
    inputSchemaText: texts.inputSchemaText,
    outputSchemaText: texts.outputSchemaText,
  };
  FIELDS.forEach(([, field], i) => (declaration[field] = inputs[i + 1]));
  declaration.untrustedOutput = element.hasAttribute('untrusted-output');
  const result = contractFromDeclaration(declaration as unknown as CapabilityDeclaration);
  const problems = [...texts.problems, ...(result.ok ? [] : result.problems)];
  if (problems.length || !result.ok) return { ok: false, problems };
  // Every element with this markup, and whatever authority admits it, sees this one object.
  const declared = { ok: true as const, contract: result.contract, json: JSON.stringify(result.contract) };
  if (key.length <= MEMO_KEY_CHARS) remember(read, key, declared, MEMO_ENTRIES);
  return declared;
}
