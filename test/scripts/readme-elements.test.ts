// The README's table of elements (under "## Elements") against custom-elements.json, the manifest
// the analyzer writes from the sources: each element's row names every attribute and every event the
// manifest lists for it, so an attribute added to an element (as `exposed-to` was) cannot be left
// out of the first table a person reads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

interface Declaration {
  tagName?: string;
  attributes?: { name: string }[];
  events?: { name: string }[];
}

/** `| \`<tag>\` | attributes | properties | events |` rows of the README's elements table. */
function tableRows(readme: string): Map<string, { attributes: string; events: string }> {
  const start = readme.indexOf('| element |', readme.indexOf('\n## Elements\n'));
  const table = readme.slice(start, readme.indexOf('\n\n', start));
  const rows = new Map<string, { attributes: string; events: string }>();
  for (const m of table.matchAll(/^\| `<(agent-[a-z-]+)>` \|([^|]*)\|([^|]*)\|([^|]*)\|$/gm)) rows.set(m[1]!, { attributes: m[2]!, events: m[4]! });
  return rows;
}

/** Whether `name` appears in `cell` as a whole word (`title` is not found in `confirmation-ttl`). */
const names = (cell: string, name: string) => new RegExp(`(^|[^\\w-])${name.replace(/[-]/g, '\\-')}($|[^\\w-])`).test(cell);

describe("the README's elements table", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const manifest = JSON.parse(readFileSync(join(root, 'custom-elements.json'), 'utf8')) as { modules: { declarations?: Declaration[] }[] };
  const rows = tableRows(readme);
  const declared = manifest.modules.flatMap((m) => m.declarations ?? []).filter((d) => d.tagName && rows.has(d.tagName));

  it('has a row for each element of agent-surface-kit/elements', () => {
    assert.deepEqual([...rows.keys()].sort(), ['agent-capability', 'agent-confirm', 'agent-surface', 'agent-view', 'agent-webmcp']);
    assert.equal(declared.length, rows.size);
  });

  for (const d of declared) {
    it(`<${d.tagName}>'s row names every attribute and event custom-elements.json lists`, () => {
      const row = rows.get(d.tagName!)!;
      assert.deepEqual((d.attributes ?? []).map((a) => a.name).filter((n) => !names(row.attributes, n)), [], 'attributes missing from the row');
      assert.deepEqual((d.events ?? []).map((e) => e.name).filter((n) => !names(row.events, n)), [], 'events missing from the row');
    });
  }
});
