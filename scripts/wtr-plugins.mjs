// Dev-server plugins shared by web-test-runner and `npm start`.
import { webmcpAgentPlugin } from './wtr-webmcp.mjs';

const STRICT_CSP = "script-src 'self'; object-src 'none'; base-uri 'none'";

/** Serves `*.csp.html` pages (and `demo/csp.html`) with a strict script-src CSP header. */
export function cspPlugin() {
  return {
    name: 'agent-surface-csp',
    transform(context) {
      if (/(\.csp\.html|\/csp\.html)$/.test(context.path)) {
        return {
          headers: {
            'content-security-policy': STRICT_CSP,
          },
        };
      }
      return undefined;
    },
  };
}

/**
 * For tests of the CDN file's lazy chunks on a failing network: `/offline-cdn/…` serves `dist/cdn/…`,
 * and while `/__chunks?down=1` is in effect every chunk there (not the entry file) answers 503.
 * `/__chunks?down=0` brings them back.
 */
export function offlineChunksMiddleware() {
  let down = false;
  return async (ctx, next) => {
    if (ctx.path === '/__chunks') {
      down = ctx.query.down === '1';
      ctx.body = down ? 'down' : 'up';
      return undefined;
    }
    if (ctx.path.startsWith('/offline-cdn/')) {
      if (down && !ctx.path.endsWith('/agent-surface.min.js')) {
        ctx.status = 503;
        ctx.body = 'chunks are down (test)';
        return undefined;
      }
      ctx.path = `/dist/cdn/${ctx.path.slice('/offline-cdn/'.length)}`;
    }
    return next();
  };
}

/**
 * For tests of a page whose lazy code is slow to arrive: after `/__modules?hold=<path prefix>`, each
 * request for a path under the prefix waits until `/__modules?release=1`.
 */
export function heldModulesMiddleware() {
  let held;
  let release = () => {};
  let gate;
  return async (ctx, next) => {
    if (ctx.path === '/__modules') {
      release();
      held = ctx.query.hold;
      gate = held && new Promise((resolve) => (release = resolve));
      ctx.body = held ? 'held' : 'released';
      return undefined;
    }
    if (held && ctx.path.startsWith(held)) await gate;
    return next();
  };
}

/**
 * Demo pages refuse to be framed by other sites (`frame-ancestors 'self'`, `X-Frame-Options:
 * SAMEORIGIN`), as README's security model asks of every page with approvals: a framing site could
 * otherwise overlay and steer the person's clicks.
 */
export function framingPlugin() {
  return {
    name: 'agent-surface-framing',
    transform(context) {
      if (!/^\/demo\/(?:[^/]*\.html)?$/.test(context.path)) return undefined;
      const csp = /\/csp\.html$/.test(context.path)
        ? `${STRICT_CSP}; frame-ancestors 'self'`
        : "frame-ancestors 'self'";
      return { headers: { 'content-security-policy': csp, 'x-frame-options': 'SAMEORIGIN' } };
    },
  };
}

export function testServerPlugins() {
  return [cspPlugin(), framingPlugin(), webmcpAgentPlugin()];
}
