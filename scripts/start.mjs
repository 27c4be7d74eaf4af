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
// demo:compile is defined by the demo: it compiles the demo's declarations into its manifest module.
step('compiling the demo contracts', 'npm', ['run', '--silent', '--if-present', 'demo:compile']);

const { startDevServer } = await import('@web/dev-server');
const { esbuildPlugin } = await import('@web/dev-server-esbuild');
const { cspPlugin } = await import('./wtr-plugins.mjs');

const server = await startDevServer({
  config: {
    rootDir: root,
    port: Number(process.env.PORT ?? 8000),
    nodeResolve: true,
    appIndex: undefined,
    plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: join(root, 'tsconfig.json') }), cspPlugin()],
  },
  readCliArgs: false,
  readFileConfig: false,
  logStartMessage: false,
});
const port = server.config.port;
console.log(`\nagent-surface-kit demo: http://localhost:${port}/demo/`);
console.log(`strict-CSP page:        http://localhost:${port}/demo/csp.html\n`);
