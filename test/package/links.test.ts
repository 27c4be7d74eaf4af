// The documents as a user reads them from the installed package (npm's site and editors show the
// packed README.md): every relative link in them opens a file that is in the tarball, and every
// #fragment names a heading of the file it points to. A link to a file left out of `files` (as
// BENCHMARKS.md once was) is a dead link on npm.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { before, describe, it } from 'node:test';
import { packedDir } from './packed.js';

let kit: string;

before(() => {
  kit = realpathSync(join(packedDir(), 'node_modules/agent-surface-kit'));
});

const withoutFences = (markdown: string) => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');

/** The text outside fenced code blocks and inline code: what a Markdown renderer turns into links. */
function prose(markdown: string): string {
  return withoutFences(markdown).replace(/(`+)[\s\S]*?\1/g, '');
}

/** Link targets: inline `[text](target "title")`, images, reference definitions, and HTML href/src. */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const out: string[] = [];
  for (const m of text.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]!);
  for (const m of text.matchAll(/^[ ]{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) out.push(m[1]!);
  for (const m of text.matchAll(/<(?:a|img)\b[^>]*\b(?:href|src)="([^"]+)"/gi)) out.push(m[1]!);
  return out;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  // A heading's code spans keep their text in the anchor (`<agent-chat>` gives agent-chat).
  for (const m of withoutFences(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = m[1]!
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

function problems(file: string): string[] {
  const found: string[] = [];
  for (const target of linkTargets(readFileSync(file, 'utf8'))) {
    if (EXTERNAL.test(target)) continue;
    const [path, fragment] = target.split('#', 2) as [string, string | undefined];
    const where = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
    const inside = relative(kit, where);
    if (inside.startsWith(`..${sep}`) || inside === '..') {
      found.push(`${target}: points outside the package`);
      continue;
    }
    if (!existsSync(where)) {
      found.push(`${target}: ${inside} is not in the tarball`);
      continue;
    }
    if (fragment && statSync(where).isFile() && /\.md$/i.test(where) && !headingAnchors(readFileSync(where, 'utf8')).has(decodeURIComponent(fragment))) {
      found.push(`${target}: ${inside} has no heading #${fragment}`);
    }
  }
  return found;
}

describe('links in the packed documents', () => {
  it('the tarball has a README, and every relative link in it resolves inside the tarball', () => {
    const readme = join(kit, 'README.md');
    assert.ok(existsSync(readme), 'README.md is packed');
    const targets = linkTargets(readFileSync(readme, 'utf8')).filter((t) => !EXTERNAL.test(t));
    assert.ok(targets.length > 0, 'the README has relative links to check');
    assert.deepEqual(problems(readme), []);
  });

  it('so does every other Markdown file at the top of the package', () => {
    const docs = ['BENCHMARKS.md', 'CHANGELOG.md'].map((f) => join(kit, f)).filter((f) => existsSync(f));
    for (const doc of docs) assert.deepEqual(problems(doc), [], relative(kit, doc));
  });

  it('package.json names a home for the project only where one exists, and the README says which', () => {
    const pkg = JSON.parse(readFileSync(join(kit, 'package.json'), 'utf8')) as Record<string, unknown>;
    const readme = readFileSync(join(kit, 'README.md'), 'utf8');
    const fields = ['repository', 'homepage', 'bugs'].filter((f) => f in pkg);
    if (fields.length === 0) {
      // No public address yet: the README says so instead of the fields pointing nowhere.
      assert.match(readme, /no public source repository or issue tracker yet/);
      return;
    }
    assert.deepEqual(fields, ['repository', 'homepage', 'bugs'], 'all three, once the project has a public home');
    const urlOf = (v: unknown) => (typeof v === 'string' ? v : (v as { url?: string } | undefined)?.url ?? '');
    for (const f of fields) assert.match(urlOf(pkg[f]), /^(git\+)?https:\/\//, `${f} is an https URL`);
    assert.doesNotMatch(readme, /no public source repository or issue tracker yet/, 'the README no longer says there is none');
  });

  it('finds links the way a renderer does: not in code, anchors as GitHub writes them', () => {
    const sample = [
      '# Chat (`<agent-chat>`)',
      'See [figures](BENCHMARKS.md#model-adapters-issue-15) and [up](#chat-agent-chat) and ![x](img/a.png).',
      '`[not](a-link.md)`',
      '```html',
      '<script src="./app.js"></script> [nor](this.md)',
      '```',
      '[ref]: docs/guide.md',
      '<a href="LICENSE">license</a>',
      '## Repeat',
      '## Repeat',
    ].join('\n');
    assert.deepEqual(linkTargets(sample), ['BENCHMARKS.md#model-adapters-issue-15', '#chat-agent-chat', 'img/a.png', 'docs/guide.md', 'LICENSE']);
    assert.deepEqual([...headingAnchors(sample)], ['chat-agent-chat', 'repeat', 'repeat-1']);
  });
});
