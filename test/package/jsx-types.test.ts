// `agent-surface-kit/jsx` and the manifest's `.d.ts`, from the packed tarball, checked by the real
// compilers: the README's React snippet under TypeScript 5.9 and TypeScript 7, its Vue snippet under
// vue-tsc, Preact JSX under TypeScript 5.9, a Svelte component under svelte-check, the CDN entry's
// types, and a React-only project that imports `agent-surface-kit/jsx/react` without skipLibCheck. The snippets are taken from the README.md
// inside the package; the contracts they use are the README's `devices.contracts.json`, compiled by the
// packed CLI. Every project also holds cases that must fail (`@ts-expect-error`, `@vue-expect-error`:
// an unused one is an error, so a type that silently became `any` fails the run), and one run checks a
// wrong handler is reported at its line.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packedDir } from './packed.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const repoModules = join(repo, 'node_modules');
/** The framework packages the projects compile against (the repository's, linked in). */
const FRAMEWORKS = ['@types/react', 'csstype', 'preact', 'vue', '@vue', 'svelte'];

const TSC5 = join(repoModules, 'typescript/bin/tsc');
const TSC7 = join(repoModules, 'typescript7/bin/tsc');
const VUE_TSC = join(repoModules, 'vue-tsc/bin/vue-tsc.js');
const SVELTE_CHECK = join(repoModules, 'svelte-check/bin/svelte-check');

/** The fenced blocks of one README section, in order. */
function sectionBlocks(readme: string, heading: string): Array<{ lang: string; code: string }> {
  const start = readme.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `README has a "${heading}" section`);
  const rest = readme.slice(start + heading.length + 2);
  const end = rest.search(/\n#{1,3} /);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2] }));
}

function block(readme: string, heading: string, lang: string): string {
  const found = sectionBlocks(readme, heading).filter((b) => b.lang === lang);
  assert.equal(found.length, 1, `README "${heading}" has one \`\`\`${lang} block`);
  return found[0].code;
}

function run(bin: string, args: string[], cwd: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', timeout: 600_000 });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

/** Writes `files` into `dir`, with the compiled manifest module and its .d.ts beside them. */
function write(dir: string, files: Record<string, string>, { manifest = true } = {}): void {
  mkdirSync(dir, { recursive: true });
  if (dir !== project && manifest) {
    for (const name of ['agent-manifest.js', 'agent-manifest.d.ts']) cpSync(join(project, name), join(dir, name));
  }
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

const tsconfig = (extra: Record<string, unknown>, include: string[]): string =>
  JSON.stringify(
    {
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'bundler',
        lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        noEmit: true,
        skipLibCheck: true,
        types: [],
        ...extra,
      },
      include,
    },
    null,
    2,
  );

let project: string;
let readme: string;

before(() => {
  const installed = join(packedDir(), 'node_modules');
  // A project outside the install and outside this checkout: the package is a real folder in its
  // node_modules (so `declare module 'react'` in its types resolves the project's React), its
  // dependencies and the frameworks are links.
  project = mkdtempSync(join(tmpdir(), 'agent-surface-jsx-'));
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, '@types'), { recursive: true });
  cpSync(join(installed, 'agent-surface-kit'), join(modules, 'agent-surface-kit'), { recursive: true });
  for (const name of readdirSync(installed)) {
    if (name === 'agent-surface-kit' || name.startsWith('.')) continue;
    if (name === '@types') {
      for (const t of readdirSync(join(installed, '@types'))) symlinkSync(join(installed, '@types', t), join(modules, '@types', t));
      continue;
    }
    symlinkSync(join(installed, name), join(modules, name));
  }
  for (const name of FRAMEWORKS) {
    rmSync(join(modules, name), { recursive: true, force: true });
    symlinkSync(join(repoModules, name), join(modules, name));
  }
  readme = readFileSync(join(modules, 'agent-surface-kit/README.md'), 'utf8');

  // The README's contracts, compiled by the packed CLI into the module and its .d.ts.
  write(project, { 'devices.contracts.json': block(readme, '### React 19', 'json') });
  const cli = join(modules, 'agent-surface-kit/bin/agent-surface.js');
  const compiled = run(cli, ['compile', 'devices.contracts.json', '--out', 'agent-manifest.js'], project);
  assert.equal(compiled.status, 0, compiled.output);
});

after(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

/** The app code the README's snippets import from `./devices.js`. */
const DEVICES_TS = `import type { InvocationEvent } from 'agent-surface-kit';
export interface Device { id: string; name: string; locked: boolean }
export interface Row { id: string; name: string }
export const api = { rename: async (id: string, name: string): Promise<Device> => ({ id, name, locked: false }) };
export function audit(record: InvocationEvent): void { console.log(record.capabilityId, record.outcome); }
`;

describe('agent-surface-kit/jsx: the README React snippet', () => {
  before(() => {
    write(join(project, 'react'), {
      'tsconfig.json': tsconfig({ jsx: 'react-jsx' }, ['*.ts', '*.tsx']),
      'App.tsx': block(readme, '### React 19', 'tsx'),
      'devices.tsx': `${DEVICES_TS}export function DeviceRow({ device }: { device: Device }) { return <span>{device.name}</span>; }\n`,
      // Cases that must fail: each @ts-expect-error is itself an error if the line type-checks.
      'must-fail.tsx': `import type {} from 'agent-surface-kit/jsx';
import { manifest } from './agent-manifest.js';
import type { CapabilityInput } from 'agent-surface-kit';
const rename = manifest.contracts['view:devices.row.rename'];
const selectRows = manifest.contracts['view:devices.selectRows'];
export const ok = [
  <agent-capability token={selectRows.token} contract={selectRows.contract} handler={({ ids }) => ids.map((id) => id.toUpperCase())} />,
  <agent-surface onagent-surface-changed={(e) => e.detail.surfaceVersion.length} onagent-confirmation={(e) => e.detail} />,
  <agent-confirm activationDelay={800} />,
  <agent-view name="devices" instance="d1" />,
];
const input: CapabilityInput<'view:devices.row.rename'> = { name: 'x' };
export const failing = [
  // @ts-expect-error: the schema has no \`nope\`
  <agent-capability token={rename.token} handler={({ nope }) => nope} />,
  // @ts-expect-error: \`name\` is a string
  <agent-capability token={rename.token} handler={({ name }: { name: number }) => name} />,
  // @ts-expect-error: the token picks rename, whose contract this is not
  <agent-capability token={rename.token} contract={selectRows.contract} />,
  // @ts-expect-error: a token no manifest of this program has
  <agent-capability token="sha256-forged" />,
  // @ts-expect-error: the event detail has no \`nope\`
  <agent-surface onagent-invocation={(e) => e.detail.nope} />,
  // @ts-expect-error: authority is an object, not a string
  <agent-surface authority="compiler" />,
  // @ts-expect-error: instance is a string
  <agent-view name="devices" instance={1} />,
  // @ts-expect-error: not a property or attribute of <agent-view>
  <agent-view nmae="devices" />,
];
// @ts-expect-error: the input type has no \`ids\`
export const wrong: CapabilityInput<'view:devices.row.rename'> = { name: 'x', ids: [] };
export { input };
`,
    });
  });

  for (const [label, tsc] of [
    ['TypeScript 5.9', TSC5],
    ['TypeScript 7', TSC7],
  ] as const) {
    it(`type-checks under strict with ${label}, and every must-fail case fails`, () => {
      const result = run(tsc, ['-p', 'tsconfig.json', '--pretty', 'false'], join(project, 'react'));
      assert.equal(result.output, '');
      assert.equal(result.status, 0);
    });
  }

  it('reports a handler whose input does not match the schema, at its line (TypeScript 5.9)', () => {
    const dir = join(project, 'react-bad');
    write(dir, {
      'tsconfig.json': tsconfig({ jsx: 'react-jsx' }, ['*.tsx']),
      'bad.tsx': `import type {} from 'agent-surface-kit/jsx';
import { manifest } from './agent-manifest.js';
const rename = manifest.contracts['view:devices.row.rename'];
export const bad = <agent-capability token={rename.token} handler={({ name }: { name: number }) => name} />;
`,
    });
    const result = run(TSC5, ['-p', 'tsconfig.json', '--pretty', 'false'], dir);
    assert.equal(result.status, 2, result.output);
    assert.match(result.output, /^bad\.tsx\(4,\d+\): error TS2322: .*name: number/m);
    assert.equal(result.output.match(/error TS/g)?.length, 1, result.output);
  });
});

describe('agent-surface-kit/jsx: Preact', () => {
  it('type-checks typed handlers and events in Preact JSX, and every must-fail case fails', () => {
    const dir = join(project, 'preact');
    write(dir, {
      'tsconfig.json': tsconfig({ jsx: 'react-jsx', jsxImportSource: 'preact' }, ['*.ts', '*.tsx']),
      'app.tsx': `import type {} from 'agent-surface-kit/jsx';
import { manifest } from './agent-manifest.js';
const selectRows = manifest.contracts['view:devices.selectRows'];
export const ok = (
  <agent-surface onagent-invocation={(e) => e.detail.capabilityId}>
    <agent-view name="devices">
      <agent-capability contract={selectRows.contract} token={selectRows.token} handler={({ ids }) => ids.join(',')} />
    </agent-view>
    <agent-confirm activation-delay="600" />
  </agent-surface>
);
export const failing = [
  // @ts-expect-error: ids are strings
  <agent-capability token={selectRows.token} handler={({ ids }: { ids: number[] }) => ids} />,
  // @ts-expect-error: the event detail has no \`nope\`
  <agent-surface onagent-invocation={(e) => e.detail.nope} />,
];
`,
    });
    const result = run(TSC5, ['-p', 'tsconfig.json', '--pretty', 'false'], dir);
    assert.equal(result.output, '');
    assert.equal(result.status, 0);
  });
});

describe('agent-surface-kit/jsx/react alone, agent-surface-kit/cdn, no manifest types', () => {
  it('type-checks without skipLibCheck in a project without Vue, Preact or Svelte, with JsonObject inputs', () => {
    const dir = join(project, 'react-only');
    // Its own node_modules: the package and React's types only (no Vue, Preact or Svelte to find).
    const modules = join(dir, 'node_modules');
    mkdirSync(join(modules, '@types'), { recursive: true });
    for (const name of readdirSync(join(project, 'node_modules'))) {
      if (FRAMEWORKS.includes(name) || name === '@types') continue;
      const from = join(project, 'node_modules', name);
      if (name === 'agent-surface-kit') cpSync(from, join(modules, name), { recursive: true });
      else symlinkSync(from, join(modules, name));
    }
    symlinkSync(join(repoModules, '@types/react'), join(modules, '@types/react'));
    symlinkSync(join(repoModules, 'csstype'), join(modules, 'csstype'));
    write(dir, {
      'tsconfig.json': tsconfig({ jsx: 'react-jsx', skipLibCheck: false }, ['*.tsx', '*.ts']),
      'app.tsx': `import type {} from 'agent-surface-kit/jsx/react';
import type { JsonObject } from 'agent-surface-kit';
export const untyped = <agent-capability name="selectRows" effect="local-state" description="Select rows."
  timeout-ms={2000} handler={(input) => { const all: JsonObject = input; return Object.keys(all).length; }} />;
// @ts-expect-error: without a typed manifest the input is a JsonObject, whose values may be numbers
export const guessed = <agent-capability token="sha256-x" handler={(input) => input.name.toUpperCase()} />;
`,
      'cdn.ts': `import { createCompilerAuthority, AgentCapabilityElement, type ContractManifest } from 'agent-surface-kit/cdn';
declare const manifest: ContractManifest;
export const authority = createCompilerAuthority({ manifest, validators: {} });
export const element: AgentCapabilityElement | null = document.querySelector('agent-capability');
// @ts-expect-error: the CDN entry's types know createCompilerAuthority takes options
createCompilerAuthority('manifest');
`,
    }, { manifest: false });
    const result = run(TSC5, ['-p', 'tsconfig.json', '--pretty', 'false'], dir);
    assert.equal(result.output, '');
    assert.equal(result.status, 0);
  });
});

describe('agent-surface-kit/jsx: the README Vue snippet', () => {
  it('type-checks under strict with vue-tsc, and every must-fail case fails', () => {
    const dir = join(project, 'vue');
    write(dir, {
      'tsconfig.json': tsconfig({ jsx: 'preserve' }, ['*.ts', '*.vue']),
      'App.vue': block(readme, '### Vue 3', 'vue'),
      'devices.ts': DEVICES_TS,
      'DeviceTable.vue': `<script setup lang="ts">
import type { Row } from './devices.js';
defineProps<{ rows: Row[] }>();
</script>
<template><table><tr v-for="row in rows" :key="row.id"><td>{{ row.name }}</td></tr></table></template>
`,
      'MustFail.vue': `<script setup lang="ts">
import type {} from 'agent-surface-kit/jsx';
import { manifest } from './agent-manifest.js';
const selectRows = manifest.contracts['view:devices.selectRows'];
const right = ({ ids }: { ids: string[] }) => ids.length;
const wrong = ({ ids }: { ids: number[] }) => ids;
</script>
<template>
  <agent-capability :token="selectRows.token" :handler.prop="right" />
  <!-- @vue-expect-error: ids are strings -->
  <agent-capability :token="selectRows.token" :handler.prop="wrong" />
  <!-- @vue-expect-error: the event detail has no nope -->
  <agent-surface @agent-invocation="(e) => e.detail.nope.length" />
  <!-- @vue-expect-error: instance is a string -->
  <agent-view name="devices" :instance="1" />
</template>
`,
    });
    const result = run(VUE_TSC, ['-p', 'tsconfig.json', '--pretty', 'false'], dir);
    assert.equal(result.output, '');
    assert.equal(result.status, 0);
  });
});

describe('agent-surface-kit/jsx: Svelte 5', () => {
  it('svelte-check accepts typed handlers and events and reports the wrong one at its line', () => {
    const dir = join(project, 'svelte');
    write(dir, {
      'tsconfig.json': tsconfig({ verbatimModuleSyntax: true }, ['*.svelte', '*.ts']),
      'App.svelte': `<script lang="ts">
  import type {} from 'agent-surface-kit/jsx';
  import { manifest } from './agent-manifest.js';
  const selectRows = manifest.contracts['view:devices.selectRows'];
  const select = ({ ids }: { ids: string[] }) => ids.length;
  let version = $state('');
</script>

<agent-surface onagent-surface-changed={(e) => (version = e.detail.surfaceVersion)}>
  <agent-view name="devices">
    <agent-capability contract={selectRows.contract} token={selectRows.token} handler={select}></agent-capability>
  </agent-view>
  <agent-confirm activation-delay="600"></agent-confirm>
</agent-surface>
<p>{version}</p>
`,
      'Wrong.svelte': `<script lang="ts">
  import type {} from 'agent-surface-kit/jsx';
  import { manifest } from './agent-manifest.js';
  const selectRows = manifest.contracts['view:devices.selectRows'];
  const wrong = ({ ids }: { ids: number[] }) => ids;
</script>

<agent-capability token={selectRows.token} handler={wrong}></agent-capability>
<agent-surface onagent-invocation={(e) => e.detail.nope}></agent-surface>
`,
    });
    const result = run(SVELTE_CHECK, ['--tsconfig', './tsconfig.json', '--output', 'machine'], dir);
    const errors = result.output
      .split('\n')
      .filter((line) => / ERROR /.test(line))
      .map((line) => /ERROR "([^"]+)" (\d+):/.exec(line)?.slice(1).join(':'));
    assert.deepEqual(errors, ['Wrong.svelte:8', 'Wrong.svelte:9'], result.output);
    assert.match(result.output, /COMPLETED \d+ FILES 2 ERRORS 0 WARNINGS/, result.output);
  });
});
