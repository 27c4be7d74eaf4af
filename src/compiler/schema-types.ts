/**
 * JSON Schema → TypeScript type text, for the `.d.ts` the compiler writes beside a manifest module.
 * It covers what contracts use (types, properties, required, items, enum, const, anyOf/oneOf/allOf,
 * additionalProperties); anything it cannot say exactly (`$ref`, `patternProperties`, `not`, `if`…)
 * becomes the widest type that still holds (`JsonValue`, `JsonObject`), never a narrower one, so a
 * handler is never told its input is something the validator does not guarantee.
 */
import type { JsonSchema } from '../core/types.js';

const MAX_DEPTH = 12;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Schema keywords that constrain values in ways a type cannot express: the type widens past them. */
const WIDENING = ['$ref', '$dynamicRef', 'not', 'if', 'then', 'else', 'patternProperties', 'dependentSchemas', 'unevaluatedProperties'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A JSDoc-safe one-line rendering of a schema `description`. */
function docComment(text: unknown, indent: string): string {
  if (typeof text !== 'string' || !text.trim()) return '';
  const clean = text.replace(/\*\//g, '*\\/').replace(/\s+/g, ' ').trim().slice(0, 300);
  return `${indent}/** ${clean} */\n`;
}

function literal(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'string') return JSON.stringify(value);
  return 'JsonValue'; // object or array const: described as JSON, not spelled out
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  if (unique.includes('JsonValue')) return 'JsonValue';
  return unique.length === 1 ? unique[0] : unique.map((p) => (p.includes('=>') ? `(${p})` : p)).join(' | ');
}

function objectType(schema: Record<string, unknown>, depth: number, indent: string): string {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const names = Object.keys(properties);
  const additional = schema.additionalProperties;
  if (!names.length) {
    if (additional === false) return 'Record<string, never>';
    if (isObject(additional)) return `{ [key: string]: ${typeOf(additional, depth + 1, indent)} }`;
    return 'JsonObject';
  }
  const inner = `${indent}  `;
  const lines = names.map((name) => {
    const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
    const optional = required.has(name) ? '' : '?';
    const sub = properties[name];
    return `${docComment(isObject(sub) ? sub.description : undefined, inner)}${inner}${key}${optional}: ${typeOf(sub, depth + 1, inner)};`;
  });
  // A required name with no property schema still has to be there, holding any JSON value.
  for (const name of required) {
    if (name in properties) continue;
    lines.push(`${inner}${IDENTIFIER.test(name) ? name : JSON.stringify(name)}: JsonValue;`);
  }
  // Other keys are allowed unless `additionalProperties: false`: say so, as `unknown` (any narrower
  // value type could clash with a declared property's type, optional ones included).
  if (additional !== false) lines.push(`${inner}[key: string]: unknown;`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function typeOf(schema: unknown, depth: number, indent: string): string {
  if (schema === true || (isObject(schema) && Object.keys(schema).length === 0)) return 'JsonValue';
  if (schema === false) return 'never';
  if (!isObject(schema) || depth > MAX_DEPTH) return 'JsonValue';
  if (WIDENING.some((k) => k in schema)) return 'JsonValue';
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.length ? union(schema.enum.map(literal)) : 'never';
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length) {
      // Sibling keywords (a shared `type`) also apply: keep it simple and exact by widening then.
      const siblings = Object.keys(schema).filter((k) => k !== key && k !== 'description' && k !== 'title');
      if (siblings.length) return 'JsonValue';
      return union(options.map((o) => typeOf(o, depth + 1, indent)));
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length) {
    const siblings = Object.keys(schema).filter((k) => k !== 'allOf' && k !== 'description' && k !== 'title');
    if (siblings.length) return 'JsonValue';
    const parts = schema.allOf.map((o) => typeOf(o, depth + 1, indent)).filter((p) => p !== 'JsonValue');
    return parts.length ? parts.map((p) => `(${p})`).join(' & ') : 'JsonValue';
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? undefined : [schema.type];
  if (!types) {
    if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema) return objectType(schema, depth, indent);
    if ('items' in schema || 'prefixItems' in schema) return arrayType(schema, depth, indent);
    return 'JsonValue';
  }
  return union(
    types.map((t) => {
      switch (t) {
        case 'string':
          return 'string';
        case 'number':
        case 'integer':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array':
          return arrayType(schema, depth, indent);
        case 'object':
          return objectType(schema, depth, indent);
        default:
          return 'JsonValue';
      }
    }),
  );
}

function arrayType(schema: Record<string, unknown>, depth: number, indent: string): string {
  if ('prefixItems' in schema) return 'JsonValue[]';
  const items = schema.items;
  if (items === undefined || items === true) return 'JsonValue[]';
  if (Array.isArray(items)) return 'JsonValue[]'; // draft-07 tuples
  const inner = typeOf(items, depth + 1, indent);
  return /^[\w.]+$/.test(inner) ? `${inner}[]` : `Array<${inner}>`;
}

/** The TypeScript type of the values `schema` accepts (absent schema: any JSON value). */
export function schemaToType(schema: JsonSchema | undefined, indent = ''): string {
  if (schema === undefined) return 'JsonValue';
  return typeOf(schema, 0, indent);
}
