import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromiumArgs } from './scripts/chromium-args.mjs';
import { chromeLauncher } from '@web/test-runner-chrome';
import { defaultReporter } from '@web/test-runner';
import { summaryReporter } from './scripts/wtr-summary-reporter.mjs';
import { heldModulesMiddleware, offlineChunksMiddleware, testServerPlugins } from './scripts/wtr-plugins.mjs';
import { mainThreadTracePlugin, modelsMiddleware } from './scripts/wtr-models.mjs';
import { chatServerMiddleware } from './scripts/wtr-chat-server.mjs';
import { POLYFILL_TEST_GLOB, webmcpPolyfillGroups } from './scripts/wtr-webmcp.mjs';

process.env.CHROME_PATH ??= '/usr/bin/chromium';

export { chromiumArgs };

/** Chromium with the native WebMCP host on (`--enable-features=WebMCP`) for the WebMCP suites. */
export function chromium({ webmcp = false } = {}) {
  return chromeLauncher({
    launchOptions: {
      executablePath: process.env.CHROME_PATH,
      headless: true,
      args: webmcp ? [...chromiumArgs, '--enable-features=WebMCP'] : chromiumArgs,
    },
  });
}

export default {
  files: ['test/elements/**/*.test.ts', 'test/webmcp/**/*.test.ts', 'test/chat/**/*.test.ts', 'test/adapters/**/*.browser.test.ts', 'test/browser/**/*.test.ts', '!test/**/*.node.test.ts', `!${POLYFILL_TEST_GLOB}`],
  nodeResolve: true,
  concurrency: 1,
  // Safety nets, not measures: a test waits on conditions (test/until.ts bounds each wait at 30 s),
  // and on a loaded two-core machine running two `npm test`s at once a test that takes 200 ms
  // when quiet can take 20 s. So a test may run 2 minutes, a file 10; a browser start, and a test
  // page loading its modules before its first test (20 s by default), 2.
  testFramework: { config: { timeout: 120000 } },
  testsFinishTimeout: 600000,
  browserStartTimeout: 120000,
  testsStartTimeout: 120000,
  middleware: [offlineChunksMiddleware(), heldModulesMiddleware(), modelsMiddleware(), chatServerMiddleware()],
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: './tsconfig.json' }), ...testServerPlugins(), mainThreadTracePlugin()],
  browsers: [chromium({ webmcp: true })],
  // *.polyfill.test.ts run in a second Chromium without the WebMCP flag (the @mcp-b polyfill as host).
  groups: webmcpPolyfillGroups(() => chromium({ webmcp: false })),
  reporters: [defaultReporter(), summaryReporter()],
};
