// Dev-server plugins shared by web-test-runner and `npm start`.
import { webmcpAgentPlugin } from './wtr-webmcp.mjs';

/** Serves `*.csp.html` pages (and `demo/csp.html`) with a strict script-src CSP header. */
export function cspPlugin() {
  return {
    name: 'agent-surface-csp',
    transform(context) {
      if (/(\.csp\.html|\/csp\.html)$/.test(context.path)) {
        return {
          headers: {
            'content-security-policy': "script-src 'self'; object-src 'none'; base-uri 'none'",
          },
        };
      }
      return undefined;
    },
  };
}

export function testServerPlugins() {
  return [cspPlugin(), webmcpAgentPlugin()];
}
