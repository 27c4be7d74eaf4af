#!/usr/bin/env node
// The CLI's build-time libraries (ajv, ajv-formats, esbuild, parse5) are dependencies of the package,
// so a normal install has them. An install that still lacks one (`--omit=optional` drops esbuild's
// binary, a hand-copied node_modules, a failed install script) gets one line saying what to install
// instead of a stack trace.

import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The one-line message for an error that means a package is missing, else undefined. */
export function missingPackageMessage(error) {
  const text = String(error?.message ?? error);
  const pkg =
    (error?.code === 'ERR_MODULE_NOT_FOUND' || error?.code === 'MODULE_NOT_FOUND'
      ? /Cannot find (?:package|module) '((?:@[^/'\s]+\/)?[^/'\s]+)/.exec(text)?.[1]
      : undefined) ??
    // esbuild without its platform binary (an install without optional dependencies).
    /The package "(@esbuild\/[^"]+)" could not be found/.exec(text)?.[1];
  if (!pkg || pkg.startsWith('.') || pkg.startsWith('/')) return undefined;
  const hint = pkg.startsWith('@esbuild/')
    ? 'reinstall without --omit=optional (esbuild needs its platform binary)'
    : `run \`npm install agent-surface-kit\` again (or \`npm install ${pkg}\`)`;
  return `agent-surface: error: cannot load "${pkg}", which the CLI needs: ${hint}`;
}

/** Run as the command (npx links `.bin/agent-surface` to this file), not imported by a test. */
function invokedDirectly() {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  try {
    const { main } = await import('../dist/cli.js');
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    const message = missingPackageMessage(error);
    if (!message) throw error;
    console.error(message);
    process.exitCode = 1;
  }
}
