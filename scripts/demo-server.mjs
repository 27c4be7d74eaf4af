// The dev server `npm start` runs for the demo, in one place so a test can start exactly the same
// server (on port 0) and look at the demo as a first-time visitor does.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Serves the repository root (the demo is at /demo/) through the dev server's TypeScript transform.
 * Packages resolve with the `production` export condition: the dev server's default
 * (`development`) would load lit's development build, which logs "Lit is in dev mode" on every
 * page load of the first thing people see. The kit's own sources still carry their development
 * checks (DEV_MODE is on without the production build's define), which is what a demo wants.
 * Without a port, the dev server takes 8000 or, when that is taken, the next free one.
 * @param {{ port?: number, hostname?: string }} [options]
 */
export async function startDemoServer({ port, hostname } = {}) {
  const { startDevServer } = await import('@web/dev-server');
  const { esbuildPlugin } = await import('@web/dev-server-esbuild');
  const { cspPlugin, framingPlugin } = await import('./wtr-plugins.mjs');
  return startDevServer({
    config: {
      rootDir: root,
      ...(port === undefined ? {} : { port }),
      ...(hostname ? { hostname } : {}),
      nodeResolve: { exportConditions: ['production'] },
      appIndex: undefined,
      plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: join(root, 'tsconfig.json') }), cspPlugin(), framingPlugin()],
    },
    readCliArgs: false,
    readFileConfig: false,
    logStartMessage: false,
  });
}
