// Writes src/jsx/elements.ts, the per-element part of `agent-surface-kit/jsx`, from custom-elements.json:
// each tag's element class, the properties a framework may set (public, writable fields), the attributes
// whose name differs from a property (`activation-delay`, `timeout-ms`), and its events with their
// classes. The framework files beside it (react.ts, preact.ts, vue.ts, svelte.ts) map that one table,
// so an element, a property or an event added to the manifest reaches every framework at once.
//
//   node scripts/jsx-types.mjs           write the file (`npm run jsx`; `npm run analyze` first)
//   node scripts/jsx-types.mjs --check   exit 1 if the committed file is not what this writes (`npm run check`)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUTPUT = join(root, 'src/jsx/elements.ts');

const pascal = (tag) => tag.replace(/(^|-)([a-z])/g, (_, __, c) => c.toUpperCase());

/** The entry module a declaration's classes are exported from (`src/elements/x.ts` → `../elements/index.js`). */
function entryOf(path) {
  const m = /^src\/([a-z]+)\//.exec(path);
  if (!m) throw new Error(`jsx-types: ${path} is outside src/<entry>/`);
  const entry = join(root, 'src', m[1], 'index.ts');
  if (!existsSync(entry)) throw new Error(`jsx-types: no entry ${entry} for ${path}`);
  return { specifier: `../${m[1]}/index.js`, text: readFileSync(entry, 'utf8') };
}

function attributeType(text) {
  if (/\bnumber\b/.test(text ?? '')) return 'number | string';
  if (/\bboolean\b/.test(text ?? '')) return 'boolean';
  return 'string';
}

export function generate(manifest) {
  const imports = new Map(); // specifier → Set of names
  const want = (entry, name, what) => {
    if (!new RegExp(`\\b${name}\\b`).test(entry.text))
      throw new Error(`jsx-types: ${entry.specifier} does not export ${name} (${what})`);
    if (!imports.has(entry.specifier)) imports.set(entry.specifier, new Set());
    imports.get(entry.specifier).add(name);
  };
  const tags = [];
  for (const mod of manifest.modules ?? []) {
    for (const decl of mod.declarations ?? []) {
      if (!decl.tagName) continue;
      const entry = entryOf(mod.path);
      want(entry, decl.name, `class of <${decl.tagName}>`);
      const fields = (decl.members ?? []).filter(
        (m) => m.kind === 'field' && !m.static && !m.readonly && (m.privacy ?? 'public') === 'public',
      );
      const fieldNames = new Set(fields.map((f) => f.name));
      const readonlyFields = new Set((decl.members ?? []).filter((m) => m.readonly).map((m) => m.name));
      const attributes = (decl.attributes ?? []).filter(
        (a) => a.name !== a.fieldName && !fieldNames.has(a.name) && !readonlyFields.has(a.fieldName ?? ''),
      );
      const events = (decl.events ?? []).map((e) => {
        const type = e.type?.text ?? 'Event';
        if (type !== 'Event' && type !== 'CustomEvent') want(entry, type, `event ${e.name}`);
        return { name: e.name, type, description: e.description };
      });
      tags.push({ tag: decl.tagName, cls: decl.name, fields, attributes, events });
    }
  }
  tags.sort((a, b) => a.tag.localeCompare(b.tag));

  const doc = (text, indent) => (text ? `${indent}/** ${text.replace(/\*\//g, '*\\/').replace(/\s+/g, ' ').trim()} */\n` : '');
  const out = [
    '// Generated from custom-elements.json by scripts/jsx-types.mjs (`npm run jsx`). Do not edit:',
    '// `npm run check` fails when this file is not what the script writes.',
  ];
  for (const [specifier, names] of [...imports].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`import type { ${[...names].sort().join(', ')} } from '${specifier}';`);
  }
  out.push('');
  for (const t of tags) {
    const name = pascal(t.tag);
    out.push(`/** \`<${t.tag}>\`: what a framework may set on it and listen to. */`);
    out.push(`export interface ${name}Tag {`);
    out.push(`  element: ${t.cls};`);
    out.push(`  /** Public, writable properties (a framework sets them as properties). */`);
    out.push(
      t.fields.length
        ? `  properties: Partial<Pick<${t.cls}, ${t.fields.map((f) => `'${f.name}'`).join(' | ')}>>;`
        : '  properties: object;',
    );
    out.push(`  /** Attributes that no property of the same name covers. */`);
    if (t.attributes.length) {
      out.push('  attributes: {');
      for (const a of t.attributes) out.push(`${doc(a.description, '    ')}    '${a.name}'?: ${attributeType(a.type?.text)};`);
      out.push('  };');
    } else out.push('  attributes: object;');
    out.push(`  /** Event name → the event it dispatches. */`);
    if (t.events.length) {
      out.push('  events: {');
      for (const e of t.events) out.push(`${doc(e.description, '    ')}    '${e.name}': ${e.type};`);
      out.push('  };');
    } else out.push('  events: object;');
    out.push('}');
    out.push('');
  }
  out.push('/** Every element of the kit, by tag. */');
  out.push('export interface AgentElementTags {');
  for (const t of tags) out.push(`  '${t.tag}': ${pascal(t.tag)}Tag;`);
  out.push('}');
  out.push('');
  return out.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const manifest = JSON.parse(readFileSync(join(root, 'custom-elements.json'), 'utf8'));
  const text = generate(manifest);
  if (process.argv.includes('--check')) {
    const committed = existsSync(OUTPUT) ? readFileSync(OUTPUT, 'utf8') : '';
    if (committed !== text) {
      console.error('[jsx-types] src/jsx/elements.ts is stale: run `npm run jsx` (after `npm run analyze`) and commit it');
      process.exit(1);
    }
  } else {
    writeFileSync(OUTPUT, text);
    console.log(`[jsx-types] wrote ${OUTPUT}`);
  }
}
