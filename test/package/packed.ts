// The packed tarball installed in a fresh folder (scripts/packed.mjs): the one `npm test` made for this
// run, or, for a file run on its own, one made here and removed when the process ends.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error: a plain .mjs script without types
import { preparePackedInstall } from '../../scripts/packed.mjs';

let made: { dir: string; cleanup(): void } | undefined;

/** The install folder: `node_modules/agent-surface-kit` from the tarball, a package.json without `"type"`. */
export function packedDir(): string {
  const given = process.env.AGENT_SURFACE_PACKED_DIR;
  if (given) return given;
  if (!made) {
    made = preparePackedInstall() as { dir: string; cleanup(): void };
    process.once('exit', () => made?.cleanup());
  }
  return made.dir;
}

/** A new folder inside the install, so each test has its own files and still finds node_modules. */
export function projectFolder(name: string): string {
  return mkdtempSync(join(packedDir(), `${name}-`));
}

/** The fenced blocks of one README section, in order. */
export function sectionBlocks(readme: string, heading: string): Array<{ lang: string; code: string }> {
  const start = readme.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `README has a "${heading}" section`);
  const rest = readme.slice(start + heading.length + 2);
  const end = rest.search(/\n#{1,3} /);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2] }));
}
