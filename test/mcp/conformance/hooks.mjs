// A Node module-load hook for @modelcontextprotocol/conformance 0.1.16 on Node 20: its bundle imports
// `globSync` from `fs` (Node 22+) for a command the server scenarios never run, and so fails to
// load at all. For that package only, `fs` resolves to Node's own `fs` plus a `globSync` that says
// what happened if it is ever called.
const SHIM =
  'data:text/javascript,' +
  encodeURIComponent(`import fs from 'node:fs';
export * from 'node:fs';
export default fs;
export function globSync() { throw new Error('fs.globSync needs Node 22; the conformance command that uses it is not supported here'); }
`);

export async function resolve(specifier, context, next) {
  if (
    (specifier === 'fs' || specifier === 'node:fs') &&
    context.parentURL?.includes('/@modelcontextprotocol/conformance/')
  )
    return { url: SHIM, shortCircuit: true };
  return next(specifier, context);
}
