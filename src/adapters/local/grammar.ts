/**
 * A GBNF grammar (llama.cpp's grammar format) from the live tools' JSON Schemas: the model can
 * only write text or one `<tool_call>` whose name is a live tool and whose arguments follow that
 * tool's schema. DOM-free.
 *
 * The grammar may be narrower than a schema (compact JSON, declared properties in declared order)
 * but never wider for what it understands; what it does not understand (`pattern`, `format`,
 * numeric bounds, `not`) it leaves to the registry's validator, which checks every call anyway.
 */
import type { ToolDescriptor } from '../../chat/types.js';

type Schema = Record<string, unknown>;

export type ToolChoice = 'auto' | 'required' | 'none';

/** Bounds that keep a grammar (and a model walking it) finite on open-ended schemas. */
const MAX_DEPTH = 12;
const MAX_RULES = 2000;
/**
 * Schema nodes the page-friendly build (`toolCallGrammarSliced`) visits before it lets the page
 * run: a few milliseconds of work, where a few hundred large tools take tens in one go.
 */
const SLICE = 500;
// Schema nodes visited by every build so far: what a slice is measured in.
let work = 0;

// Character classes leave out what is not a Unicode scalar value (surrogates, code points past
// U+10FFFF): llama.cpp's grammar would accept their byte patterns, and the engine's JSON layer
// rejects the resulting invalid UTF-8 mid-stream.
const NOT_SCALAR = String.raw`\uD800-\uDFFF\U00110000-\U001FFFFF`;
const BASE = String.raw`
value ::= object | array | string | number | boolean | null
object ::= "{" ( string ":" value ( "," string ":" value )* )? "}"
array ::= "[" ( value ( "," value )* )? "]"
string ::= "\"" char* "\""
char ::= [^"\\\x00-\x1f${NOT_SCALAR}] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} )
integer ::= "-"? ( "0" | [1-9] [0-9]{0,15} )
number ::= integer ( "." [0-9]{1,16} )? ( [eE] [-+]? [0-9]{1,3} )?
boolean ::= "true" | "false"
null ::= "null"`;

// JSON Schema types whose values have a rule of that name in BASE (string, array and object are
// built from the schema's bounds and properties).
const TYPES = ['string', 'array', 'object', 'integer', 'number', 'boolean', 'null'];

/** A GBNF string literal for `text`: JSON's escapes are GBNF's, but for `\b` and `\f`. */
export const literal = (text: string): string =>
  JSON.stringify(text).replace(/\\[^]/g, (e) => (e == '\\b' ? '\\x08' : e == '\\f' ? '\\x0c' : e));

const json = (v: unknown) => literal(JSON.stringify(v) ?? 'null');
/** A JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Schema => typeof v == 'object' && !!v && !Array.isArray(v);
const alternatives = (list: unknown[], rule: (v: unknown) => string) => `( ${list.map(rule).join(' | ')} )`;
const count = (v: unknown) => (Number.isInteger(v) && (v as number) >= 0 ? Math.min(v as number, 4096) : undefined);

/**
 * The rule (a name or an inline expression) that matches JSON valid for `root`; the rules it needs
 * go into `rules`, named with `prefix` so two tools' rules stay apart in one grammar.
 */
function build(root: unknown, prefix: string, rules: Map<string, string>): string {
  const refs = new Map<string, string>();
  let n = 0;
  const name = (kind: string) => `${prefix}-${kind}-${(n++).toString(36)}`;
  // Past the rule limit every new rule is `value`: an array or object is then not walked at all,
  // since whatever its parts gave, it would come out as `value`.
  const full = () => rules.size > MAX_RULES;
  const add = (kind: string, body: string) => {
    if (full()) return 'value';
    const rule = name(kind);
    rules.set(rule, body);
    return rule;
  };

  const value = (s: unknown, depth: number): string => {
    work++;
    // `false` is unsatisfiable: the validator says so with words.
    if (!isObject(s) || depth > MAX_DEPTH) return 'value';
    const deeper = (v: unknown) => value(v, depth + 1);
    if (typeof s.$ref == 'string') return ref(s.$ref, depth);
    if ('const' in s) return json(s.const);
    if (Array.isArray(s.enum) && s.enum.length) return alternatives(s.enum, json);
    const { anyOf, oneOf, allOf, ...rest } = s;
    const some = [anyOf, oneOf].find((a): a is unknown[] => Array.isArray(a) && !!a.length);
    // Sibling keywords (a shared `type`, `properties`) apply to every branch.
    if (some) return alternatives(some, (b) => deeper(isObject(b) ? { ...rest, allOf, ...b } : b));
    if (Array.isArray(allOf) && allOf.length) return deeper(Object.assign(rest, ...allOf.filter(isObject)));
    if (Array.isArray(s.type)) return alternatives(s.type, (type) => deeper({ ...s, type }));
    const type = TYPES.includes(s.type as string) ? s.type : isObject(s.properties) ? 'object' : 'value';
    if (type == 'string') {
      const min = count(s.minLength) ?? 0;
      const max = count(s.maxLength);
      if (!min && max === undefined) return 'string';
      return add('str', `"\\"" char{${max === undefined ? min + ',' : Math.min(min, max) + ',' + max}} "\\""`);
    }
    if (type == 'array') {
      const max = count(s.maxItems);
      if (full()) return max === 0 ? '"[]"' : 'value';
      const item = deeper(s.items ?? {});
      // minItems over maxItems cannot be met: the grammar keeps to maxItems and the validator refuses.
      const min = Math.min(count(s.minItems) ?? 0, max ?? Infinity);
      if (max === 0) return '"[]"';
      const more = `( "," ${item} )${max === undefined ? '*' : `{${Math.max(0, min - 1)},${max - 1}}`}`;
      return add('arr', min ? `"[" ${item} ${more} "]"` : `"[" ( ${item} ${more} )? "]"`);
    }
    if (type != 'object') return type as string;
    const properties = Object.entries(isObject(s.properties) ? s.properties : {});
    // Listing them is work too: past the rule limit it is all an object costs.
    work += properties.length;
    // No declared properties: an empty object when nothing else is allowed, else any object.
    if (!properties.length) return s.additionalProperties === false ? '"{}"' : 'object';
    const required = Array.isArray(s.required) ? s.required : [];
    // [first, later]: the properties from i on, in order, written first in the object or after
    // another one (with a comma); optional ones may be left out. Built from the end, two rules per
    // property, so the grammar grows linearly with the schema.
    let first = '""';
    let later = '""';
    for (let i = properties.length; i--; ) {
      if (full()) return 'value';
      const [key, sub] = properties[i]!;
      const pair = `${literal(JSON.stringify(key) + ':')} ${deeper(sub)} ${later}`;
      const optional = !required.includes(key);
      [first, later] = [add('obj', pair + (optional ? ` | ${first}` : '')), add('obj', `"," ${pair}` + (optional ? ` | ${later}` : ''))];
    }
    return add('obj', `"{" ${first} "}"`);
  };

  const ref = (pointer: string, depth: number): string => {
    let rule = refs.get(pointer);
    if (rule) return rule;
    let target: unknown = root;
    try {
      if (pointer[0] != '#') return 'value';
      for (const raw of pointer.split('/').slice(1)) {
        const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
        target = isObject(target) && Object.hasOwn(target, key) ? target[key] : undefined;
      }
    } catch {
      return 'value'; // a broken %-escape
    }
    if (!isObject(target)) return 'value';
    // Named before it is built, so a recursive schema refers to itself instead of unrolling.
    refs.set(pointer, (rule = name('ref')));
    rules.set(rule, 'value');
    rules.set(rule, value(target, depth + 1));
    return rule;
  };

  return value(root, 0);
}

const render = (rules: Map<string, string>, ...lines: string[]) =>
  [...lines, ...[...rules].map(([name, body]) => `${name} ::= ${body}`)].join('\n') + BASE;

/** A grammar for the arguments of one schema alone (`root` is the value). */
export function schemaGrammar(schema: unknown): string {
  const rules = new Map<string, string>();
  return render(rules, `root ::= ${build(schema, 'r', rules)}`);
}

// The tool-call rule and the rules it needs (the part of a turn's grammar the tool choice leaves
// alone), built one tool at a time; it pauses (yields) between tools once a slice's work is done.
function* callRules(tools: readonly ToolDescriptor[]): Generator<void, string[]> {
  const rules = new Map<string, string>();
  const calls: string[] = [];
  let start = work;
  for (const t of tools) {
    if (work - start > SLICE) yield void (start = work);
    calls.push(`${literal(`{"name":${JSON.stringify(t.name)},"arguments":`)} ${build(t.inputSchema ?? {}, `t${calls.length}`, rules)} "}"`);
  }
  return [`call ::= "<tool_call>\\n" ( ${calls.join(' | ')} ) "\\n</tool_call>"`, ...[...rules].map(([name, body]) => `${name} ::= ${body}`)];
}

const turn = ([call, ...rules]: string[], choice: ToolChoice) =>
  [call, `root ::= call${choice == 'required' ? '' : ' | text'}`, `text ::= [^<\\x00${NOT_SCALAR}] [^\\x00${NOT_SCALAR}]*`, ...rules].join('\n') + BASE;

/**
 * The last tool list a grammar was built for (each tool's name and schema object) and its rules:
 * `toolCallGrammarSliced` given the same memo builds nothing while the tools stay the same.
 */
export interface GrammarMemo {
  tools?: [string, unknown][];
  rules?: string[];
}

const same = (memo: GrammarMemo, tools: readonly ToolDescriptor[]) =>
  memo.tools?.length == tools.length && tools.every((t, i) => memo.tools![i]![0] === t.name && memo.tools![i]![1] === t.inputSchema);

/**
 * The grammar of one model turn in the `<tool_call>` format (see tool-format.ts): with `auto`, text
 * that does not start with `<`, or one tool call; with `required`, one tool call; with `none` (or
 * no tools), `undefined`: no constraint.
 */
export function toolCallGrammar(tools: readonly ToolDescriptor[], choice: ToolChoice = 'auto'): string | undefined {
  if (choice == 'none' || !tools.length) return;
  const g = callRules(tools);
  let r;
  while (!(r = g.next()).done);
  return turn(r.value, choice);
}

/**
 * `toolCallGrammar`, built in slices with the event loop let run between them (`scheduler.yield()`
 * where the browser has it), so many large tools make no long task on the page's main thread.
 * With a `memo`, a later call for the same tools (same names, same schema objects) reuses the
 * rules built last time: a run's steps walk the schemas once.
 */
export async function toolCallGrammarSliced(tools: readonly ToolDescriptor[], choice: ToolChoice = 'auto', memo: GrammarMemo = {}): Promise<string | undefined> {
  if (choice == 'none' || !tools.length) return;
  if (!same(memo, tools)) {
    const key = tools.map((t): [string, unknown] => [t.name, t.inputSchema]);
    const g = callRules(tools);
    const s = (globalThis as { scheduler?: { yield?(): Promise<void> } }).scheduler;
    let r;
    while (!(r = g.next()).done) await (s?.yield ? s.yield() : new Promise((go) => setTimeout(go)));
    [memo.tools, memo.rules] = [key, r.value];
  }
  return turn(memo.rules!, choice);
}
