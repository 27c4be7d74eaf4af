// `npm start`: sets up, builds, compiles the demo's contracts, then serves demo/ with @web/dev-server
// and prints the URL. PORT overrides the port (default 8000, or the next free one).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setup } from './setup.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
setup();

function step(name, cmd, args) {
  console.log(`[start] ${name}`);
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`[start] ${name} failed`);
    process.exit(1);
  }
}

step('building', 'npx', ['rollup', '-c', '--silent']);
// The demo's contracts, with the CLI just built: the manifest module is regenerated (a build
// product, like dist/), while the tokens in the markup are only checked, never written here:
// authorizing a changed declaration is the author's step (`--write`), not a side effect of start.
const demoInputs = ['demo/index.html', 'demo/csp.html'];
const demoOut = ['--out', 'demo/generated/agent-surface.manifest.js'];
step('compiling the demo contracts', process.execPath, ['bin/agent-surface.js', 'compile', ...demoInputs, ...demoOut]);
const tokens = spawnSync(process.execPath, ['bin/agent-surface.js', 'compile', ...demoInputs, ...demoOut, '--check'], {
  cwd: root,
  stdio: 'inherit',
});
if (tokens.status !== 0) {
  console.error(`[start] the demo's tokens are stale: node bin/agent-surface.js compile ${demoInputs.join(' ')} ${demoOut.join(' ')} --write`);
  process.exit(1);
}

const { startDemoServer } = await import('./demo-server.mjs');
const server = await startDemoServer(process.env.PORT ? { port: Number(process.env.PORT) } : {});
// The port it bound (PORT=0 asks the system for one; the default is 8000 or the next free one).
const address = server.server?.address();
const port = typeof address === 'object' && address ? address.port : server.config.port;
console.log(`\nagent-surface-kit demo: http://localhost:${port}/demo/`);
console.log(`strict-CSP page:        http://localhost:${port}/demo/csp.html\n`);
