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

// Character classes leave out what is not a Unicode scalar value (surrogates, code points past
// U+10FFFF): llama.cpp's grammar would accept their byte patterns, and the engine's JSON layer
// rejects the resulting invalid UTF-8 mid-stream.
const BASE = String.raw`
value ::= object | array | string | number | boolean | null
object ::= "{" ( string ":" value ( "," string ":" value )* )? "}"
array ::= "[" ( value ( "," value )* )? "]"
string ::= "\"" char* "\""
char ::= [^"\\\x00-\x1f\uD800-\uDFFF\U00110000-\U001FFFFF] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} )
integer ::= "-"? ( "0" | [1-9] [0-9]{0,15} )
number ::= integer ( "." [0-9]{1,16} )? ( [eE] [-+]? [0-9]{1,3} )?
boolean ::= "true" | "false"
null ::= "null"
`;

/** A GBNF string literal for `text`. */
export function literal(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

class Builder {
  readonly rules = new Map<string, string>();
  private readonly refs = new Map<string, string>();
  private count = 0;

  /** `prefix` keeps two tools' rule names apart in one grammar. */
  constructor(
    private readonly root: Schema,
    private readonly prefix = 'r',
  ) {}

  add(kind: string, body: string): string {
    if (this.rules.size > MAX_RULES) return 'value';
    const name = `${this.prefix}-${kind}-${(this.count++).toString(36)}`;
    this.rules.set(name, body);
    return name;
  }

  /** The name (or inline expression) of a rule that matches JSON valid for `schema`. */
  value(schema: unknown, depth: number): string {
    if (schema === false) return 'value'; // unsatisfiable: the validator says so with words
    if (!isObject(schema) || depth > MAX_DEPTH) return 'value';
    if (typeof schema.$ref === 'string') return this.ref(schema.$ref, depth);
    if ('const' in schema) return literal(JSON.stringify(schema.const) ?? 'null');
    if (Array.isArray(schema.enum) && schema.enum.length) {
      return `( ${schema.enum.map((v) => literal(JSON.stringify(v) ?? 'null')).join(' | ')} )`;
    }
    const alternatives = (Array.isArray(schema.anyOf) && schema.anyOf) || (Array.isArray(schema.oneOf) && schema.oneOf);
    if (alternatives && alternatives.length) {
      // Sibling keywords (a shared `type`, `properties`) apply to every branch.
      const { anyOf: _a, oneOf: _o, ...rest } = schema;
      return `( ${alternatives.map((s) => this.value(isObject(s) ? { ...rest, ...s } : s, depth + 1)).join(' | ')} )`;
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length) {
      const { allOf, ...rest } = schema;
      return this.value(Object.assign({}, rest, ...allOf.filter(isObject)), depth + 1);
    }
    const type = schema.type;
    if (Array.isArray(type)) {
      return `( ${type.map((t) => this.value({ ...schema, type: t }, depth + 1)).join(' | ')} )`;
    }
    switch (type) {
      case 'string':
        return this.string(schema);
      case 'integer':
        return 'integer';
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return this.array(schema, depth);
      case 'object':
        return this.object(schema, depth);
      default:
        return isObject(schema.properties) ? this.object(schema, depth) : 'value';
    }
  }

  private ref(ref: string, depth: number): string {
    const known = this.refs.get(ref);
    if (known) return known;
    const target = ref.startsWith('#') ? resolvePointer(this.root, ref.slice(1)) : undefined;
    if (!isObject(target) && typeof target !== 'boolean') return 'value';
    // Named before it is built, so a recursive schema refers to itself instead of unrolling.
    const name = `${this.prefix}-ref-${(this.count++).toString(36)}`;
    this.refs.set(ref, name);
    this.rules.set(name, 'value');
    this.rules.set(name, this.value(target, depth + 1));
    return name;
  }

  private string(schema: Schema): string {
    const min = nonNegative(schema.minLength) ?? 0;
    const max = nonNegative(schema.maxLength);
    if (!min && max === undefined) return 'string';
    const reps = max === undefined ? `{${min},}` : `{${Math.min(min, max)},${max}}`;
    return this.add('str', `"\\"" char${reps} "\\""`);
  }

  private array(schema: Schema, depth: number): string {
    const item = this.value(schema.items === undefined ? {} : schema.items, depth + 1);
    const max = nonNegative(schema.maxItems);
    // minItems over maxItems cannot be met: the grammar keeps to maxItems and the validator refuses.
    const min = Math.min(nonNegative(schema.minItems) ?? 0, max ?? Infinity);
    if (max === 0) return '"[]"';
    const more = max === undefined ? `( "," ${item} )*` : `( "," ${item} ){${Math.max(0, min - 1)},${max - 1}}`;
    const body = min > 0 ? `"[" ${item} ${more} "]"` : `"[" ( ${item} ${more} )? "]"`;
    return this.add('arr', body);
  }

  private object(schema: Schema, depth: number): string {
    const properties = isObject(schema.properties) ? Object.entries(schema.properties) : [];
    if (!properties.length) {
      // No declared properties: an empty object when nothing else is allowed, else any object.
      return schema.additionalProperties === false ? '"{}"' : 'object';
    }
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === 'string') : []);
    const pairs = properties.map(([key, sub]) => `${literal(JSON.stringify(key) + ':')} ${this.value(sub, depth + 1)}`);
    // rest(i, comma): the properties from i on, in order; optional ones may be left out. Built from
    // the end, two rules per property at most, so the grammar grows linearly with the schema.
    const names: Array<[string, string]> = [];
    let next: [string, string] = ['""', '""'];
    for (let i = pairs.length - 1; i >= 0; i--) {
      const key = properties[i]![0];
      const withComma = `"," ${pairs[i]} ${next[1]}`;
      const without = `${pairs[i]} ${next[1]}`;
      const cur: [string, string] = required.has(key)
        ? [this.add('obj', without), this.add('obj', withComma)]
        : [this.add('obj', `${without} | ${next[0]}`), this.add('obj', `${withComma} | ${next[1]}`)];
      names.unshift(cur);
      next = cur;
    }
    return this.add('obj', `"{" ${names[0]![0]} "}"`);
  }
}

function nonNegative(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? Math.min(v, 4096) : undefined;
}

function resolvePointer(root: Schema, pointer: string): unknown {
  let node: unknown = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !Object.prototype.hasOwnProperty.call(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** A grammar for the arguments of one schema alone (`root` is the value). */
export function schemaGrammar(schema: unknown): string {
  const b = new Builder(isObject(schema) ? schema : {});
  const root = b.value(schema, 0);
  return render(`root ::= ${root}`, b);
}

/**
 * The grammar of one model turn in the `<tool_call>` format (see tool-format.ts): with `auto`, text
 * that does not start with `<`, or one tool call; with `required`, one tool call; with `none` (or
 * no tools), `undefined`: no constraint.
 */
export function toolCallGrammar(tools: readonly ToolDescriptor[], choice: ToolChoice = 'auto'): string | undefined {
  if (choice === 'none' || !tools.length) return undefined;
  const lines: string[] = [];
  const calls: string[] = [];
  const rules = new Map<string, string>();
  tools.forEach((tool, i) => {
    const b = new Builder(isObject(tool.inputSchema) ? tool.inputSchema : {}, `t${i}`);
    const args = b.value(tool.inputSchema ?? {}, 0);
    for (const [name, body] of b.rules) rules.set(name, body);
    calls.push(`${literal(`{"name":${JSON.stringify(tool.name)},"arguments":`)} ${args} "}"`);
  });
  lines.push(`call ::= "<tool_call>\\n" ( ${calls.join(' | ')} ) "\\n</tool_call>"`);
  lines.push(choice === 'required' ? 'root ::= call' : 'root ::= call | text');
  lines.push('text ::= [^<\\x00\\uD800-\\uDFFF\\U00110000-\\U001FFFFF] [^\\x00\\uD800-\\uDFFF\\U00110000-\\U001FFFFF]*');
  for (const [name, body] of rules) lines.push(`${name} ::= ${body}`);
  return lines.join('\n') + BASE;
}

function render(rootLine: string, b: Builder): string {
  const lines = [rootLine];
  for (const [name, body] of b.rules) lines.push(`${name} ::= ${body}`);
  return lines.join('\n') + BASE;
}
