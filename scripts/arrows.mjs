// `node scripts/arrows.mjs` (a step of `npm run check`): the folders of src/ tell the architecture
// (STYLE.md, DESIGN section 1), and this keeps them true. It reads every import of every module in
// src/ (static imports and re-exports, `import()`, `import type` and `import('…')` types alike: a
// type-only arrow is still an arrow a reader follows) and fails on
//  - an arrow a folder may not draw (the RULES below),
//  - an entry reaching, at run time, a module it must stay free of (UNREACHABLE below), and
//  - an import cycle anywhere in src/ (a lazy `import()` in a cycle still ties the two ends together).
// An import through the package's own name (`agent-surface-kit/elements`) is refused too: it would be
// an arrow the check cannot place. Exits 1 with every problem listed; `--json` prints the graph
// instead; `--src <dir>` checks another source tree laid out like src/ (test/scripts/arrows.test.ts).
import ts from 'typescript';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const srcFlag = process.argv.indexOf('--src');
const src = srcFlag > 0 && process.argv[srcFlag + 1] ? resolve(process.argv[srcFlag + 1]) : join(repo, 'src');
/** What paths in messages are relative to: the folder holding src/. */
const root = dirname(src);
const PACKAGE = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).name;

/**
 * Where each room of src/ may point, besides itself. `types` lists the rooms it may reach with
 * type-only imports alone; `packages`, a pattern of bare specifiers it may not import;
 * `computedImports`, whether it may `import()` a specifier the check cannot read (elsewhere that
 * would be an arrow nobody can see). A file of src/ itself (an entry) is its own room, by name.
 */
const RULES = {
  core: { may: [], packages: /^(lit|@lit\/|@lit-labs\/)/ },
  dev: { may: ['core'], packages: /^(lit|@lit\/|@lit-labs\/)/ },
  webmcp: { may: ['core'] },
  elements: { may: ['core', 'webmcp'] },
  // The compiler loads the validator module it just generated from a `data:` URL. Its command line
  // (the `agent-surface` bin) lists the `mcp` command, whose table entry lives in src/mcp.
  compiler: { may: ['core', 'mcp'], computedImports: true },
  chat: { may: ['core', 'elements'], types: ['webmcp'] },
  adapters: { may: ['core'], types: ['chat'] },
  // The server speaks the cloud adapter's wire protocol, so it may share the adapters' code for it.
  server: { may: ['core', 'adapters'], types: ['chat'] },
  // `agent-surface mcp <module>` loads the module the user names.
  mcp: { may: ['core'], computedImports: true },
  testing: { may: ['core', 'dev'] },
  // Types only (agent-surface-kit/jsx): the elements' classes and events, for each framework's JSX.
  jsx: { may: [], types: ['core', 'elements', 'chat'] },
  'index.ts': { may: ['core'] },
  'cdn.ts': { may: ['index.ts', 'core', 'dev', 'elements', 'webmcp'] },
  // dist/cdn/agent-chat.min.js: the chat and the browser adapters, over the kit's CDN file.
  'cdn-chat.ts': { may: ['cdn.ts', 'chat', 'adapters'] },
};

/**
 * Modules an entry must never reach, through static imports or `import()` (a bundler without code
 * splitting inlines both): the core entry stays free of the interpreter (DESIGN section 1).
 */
const UNREACHABLE = {
  'index.ts': ['core/authority.ts', 'core/interpreter.ts', '@cfworker/json-schema'],
};

function sourceFiles(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    // JavaScript modules too: a .js file beside the TypeScript could carry an arrow past the check.
    else if (/\.([mc]?[jt]s|[jt]sx)$/.test(name) && !/\.d\.[mc]?ts$/.test(name)) out.push(path);
  }
  return out;
}

const roomOf = (file) => relative(src, file).split(sep)[0];

/** `./x.js` from `file` → the source file it names (`x.ts`, `x.tsx`, or `x/index.ts`). */
function resolveRelative(file, specifier) {
  const base = resolve(dirname(file), specifier);
  const stem = base.replace(/\.(m?js|jsx)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(base, 'index.ts'), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Every import of one file: `{ specifier, kind: 'static' | 'dynamic' | 'type', line }`. */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const add = (node, specifier, kind) =>
    found.push({ specifier, kind, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 });
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause !== undefined &&
          clause.name === undefined &&
          clause.namedBindings !== undefined &&
          ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 &&
          clause.namedBindings.elements.every((e) => e.isTypeOnly));
      add(node, node.moduleSpecifier.text, typeOnly ? 'type' : 'static');
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly =
        node.isTypeOnly ||
        (node.exportClause !== undefined &&
          ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.length > 0 &&
          node.exportClause.elements.every((e) => e.isTypeOnly));
      add(node, node.moduleSpecifier.text, typeOnly ? 'type' : 'static');
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      // `import x = require('…')`
      add(node, node.moduleReference.expression.text, node.isTypeOnly ? 'type' : 'static');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) add(node, arg.text, 'dynamic');
      else found.push({ specifier: undefined, kind: 'dynamic', line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node, node.argument.literal.text, 'type');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** The import graph of src/: `Map<file, { to, kind, line, specifier }[]>`, and the problems met reading it. */
export function importGraph() {
  const graph = new Map();
  const problems = [];
  for (const file of sourceFiles(src)) {
    const edges = [];
    for (const { specifier, kind, line } of importsOf(file)) {
      const at = `${relative(root, file)}:${line}`;
      if (specifier === undefined) {
        if (RULES[roomOf(file)]?.computedImports) continue;
        problems.push(`${at}: import() of a computed specifier: the check cannot follow it (use a string literal)`);
        continue;
      }
      if (specifier === PACKAGE || specifier.startsWith(`${PACKAGE}/`)) {
        problems.push(`${at}: "${specifier}" is this package's own name: import the module by its relative path, so the check can follow the arrow`);
        continue;
      }
      if (!specifier.startsWith('.')) {
        edges.push({ to: undefined, specifier, kind, line });
        continue;
      }
      const to = resolveRelative(file, specifier);
      if (to === undefined) problems.push(`${at}: "${specifier}" names no file`);
      else if (!to.startsWith(src + sep)) problems.push(`${at}: "${specifier}" leaves src/`);
      else edges.push({ to, specifier, kind, line });
    }
    graph.set(file, edges);
  }
  return { graph, problems };
}

/** Forbidden arrows: a room importing a room its rule does not list (or a package it may not use). */
export function forbiddenArrows(graph) {
  const problems = [];
  for (const [file, edges] of graph) {
    const from = roomOf(file);
    const rule = RULES[from];
    const at = (e) => `${relative(root, file)}:${e.line}`;
    if (rule === undefined) {
      problems.push(`${relative(root, file)}: src/${from} has no rule in scripts/arrows.mjs (say where it may point)`);
      continue;
    }
    for (const e of edges) {
      if (e.to === undefined) {
        if (rule.packages?.test(e.specifier)) problems.push(`${at(e)}: src/${from} may not import "${e.specifier}"`);
        continue;
      }
      const to = roomOf(e.to);
      if (to === from || rule.may.includes(to)) continue;
      if (e.kind === 'type' && rule.types?.includes(to)) continue;
      const allowed = [...rule.may, ...(rule.types ?? []).map((r) => `${r} (types)`)].join(', ') || 'nothing outside itself';
      problems.push(`${at(e)}: src/${from} → src/${relative(src, e.to)} (${e.kind}); src/${from} may import ${allowed}`);
    }
  }
  return problems;
}

/** Entries reaching what they must not (UNREACHABLE), with the path that gets there. */
export function unreachable(graph) {
  const problems = [];
  for (const [entry, banned] of Object.entries(UNREACHABLE)) {
    const start = join(src, entry);
    // Breadth first over runtime imports (types are erased), remembering how each file was reached.
    const via = new Map([[start, undefined]]);
    const queue = [start];
    while (queue.length) {
      const file = queue.shift();
      for (const e of graph.get(file) ?? []) {
        if (e.kind === 'type') continue;
        const target = e.to ?? `package:${e.specifier}`;
        if (via.has(target)) continue;
        via.set(target, file);
        if (e.to !== undefined) queue.push(e.to);
      }
    }
    for (const ban of banned) {
      const target = ban.startsWith('@') || !ban.includes('/') ? [...via.keys()].find((k) => k === `package:${ban}` || k.startsWith(`package:${ban}/`)) : join(src, ban);
      if (target === undefined || !via.has(target)) continue;
      const path = [];
      for (let at = target; at !== undefined; at = via.get(at)) path.unshift(at.startsWith('package:') ? at.slice(8) : relative(root, at));
      problems.push(`src/${entry} must not reach ${ban}, but does: ${path.join(' → ')}`);
    }
  }
  return problems;
}

/** Import cycles: the strongly connected components of more than one file, or a file importing itself. */
export function cycles(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  // Iterative Tarjan: the graph is small, but recursion depth should not depend on it.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [[start, 0]];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [v] = frame;
      const edges = graph.get(v) ?? [];
      if (frame[1] < edges.length) {
        const w = edges[frame[1]++].to;
        if (w === undefined) continue;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(v)));
      }
      if (low.get(v) === index.get(v)) {
        const component = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        const selfLoop = component.length === 1 && edges.some((e) => e.to === v);
        if (component.length > 1 || selfLoop) found.push(component);
      }
    }
  }
  return found.map((component) => {
    const members = new Set(component);
    const arrows = [];
    for (const file of component) {
      for (const e of graph.get(file) ?? []) {
        if (e.to !== undefined && members.has(e.to)) {
          arrows.push(`  ${relative(root, file)}:${e.line} → ${relative(root, e.to)} (${e.kind})`);
        }
      }
    }
    return `import cycle among ${component.map((f) => relative(root, f)).sort().join(', ')}:\n${arrows.join('\n')}`;
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { graph, problems } = importGraph();
  if (process.argv.includes('--json')) {
    const out = {};
    for (const [file, edges] of graph) {
      out[relative(root, file)] = edges.map((e) => ({ to: e.to ? relative(root, e.to) : e.specifier, kind: e.kind }));
    }
    console.log(JSON.stringify(out, null, 2));
  } else {
    const all = [...problems, ...forbiddenArrows(graph), ...unreachable(graph), ...cycles(graph)];
    if (all.length) {
      for (const p of all) console.error(`[arrows] ${p}`);
      console.error(`[arrows] ${all.length} problem${all.length > 1 ? 's' : ''} (rules: scripts/arrows.mjs, STYLE.md "One behaviour, one story")`);
      process.exit(1);
    }
    let edges = 0;
    for (const e of graph.values()) edges += e.length;
    console.log(`[arrows] ${graph.size} modules, ${edges} imports: no forbidden arrow, no cycle`);
  }
}
