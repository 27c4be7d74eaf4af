// Test server routes for the local adapter's browser tests: model files generated at startup
// (scripts/tiny-gguf.mjs), broken variants, a download that waits for the test, fetch counts, and
// a cross-origin isolated page for the multi-threaded engine.
//
//   /__models/tiny.gguf         the tiny GGUF (same bytes every run)
//   /__models/tiny-b.gguf       a second model (another seed), for model choice
//   /__models/missing.gguf      404
//   /__models/short.gguf        the first half of the file, served as if whole (its own length)
//   /__models/cut.gguf          chunked; half the file, then the connection drops
//   /__models/held.gguf         a quarter of the file, then nothing until /__models/release (or the client leaves,
//                               or /__models/drop cuts the connection)
//   /__models/resume.gguf       the tiny GGUF with an ETag, answering `Range: bytes=N-` (and If-Range) with 206;
//                               the first request after a reset holds like held.gguf
//   /__models/norange.gguf      the same, from a server that ignores Range (always 200, the whole file)
//   /__models/changed.gguf      the same, but the file changes after the first request (another ETag and
//                               the second model's bytes), so an If-Range of the first one gets 200
//   /__models/info              JSON: the byte size of each whole model
//   /__models/stats             JSON: requests per path since the last /__models/reset
//   /__models/requests          JSON: each model request since the last reset ({ path, range, ifRange, status })
// tiny.gguf and tiny-b.gguf answer ranges too (strong ETags), as static file servers and CDNs do.
//   /__models/coi/<path>        any file of the project with COOP/COEP headers (crossOriginIsolated pages)
let modelBytes;
let secondBytes;
const hits = new Map();
let release;
let drop;
let requests = [];

/** Answers `Range: bytes=N-` (honouring If-Range against `etag`) unless `ranges` is false; else the whole file. */
function whole(ctx, bytes, etag, ranges = true) {
  const range = ranges && /^bytes=(\d+)-$/.exec(ctx.get('range'));
  const ifRange = ctx.get('if-range');
  ctx.set('ETag', etag);
  ctx.set('Accept-Ranges', ranges ? 'bytes' : 'none');
  if (range && (!ifRange || ifRange === etag)) {
    const start = Number(range[1]);
    if (start >= bytes.length) {
      ctx.status = 416;
      ctx.set('Content-Range', `bytes */${bytes.length}`);
      return;
    }
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${start}-${bytes.length - 1}/${bytes.length}`);
    ctx.body = bytes.subarray(start);
    return;
  }
  ctx.body = bytes;
}

/** A quarter of the file, then nothing until /__models/release (or the client leaves). */
async function hold(ctx, bytes, headers = {}) {
  ctx.respond = false;
  const res = ctx.res;
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store', ...headers });
  res.write(bytes.subarray(0, bytes.length >> 2));
  const done = new Promise((resolve) => {
    release = resolve;
    drop = () => (res.destroy(), resolve());
    res.on('close', resolve);
  });
  await done;
  if (!res.destroyed) res.end(bytes.subarray(bytes.length >> 2));
}

async function model() {
  if (!modelBytes) {
    const { tinyGguf } = await import('./tiny-gguf.mjs');
    modelBytes = Buffer.from(tinyGguf());
    secondBytes = Buffer.from(tinyGguf({ seed: 99 }));
  }
  return modelBytes;
}

export function modelsMiddleware() {
  return async (ctx, next) => {
    if (ctx.path.startsWith('/__models/coi/')) {
      ctx.path = ctx.path.slice('/__models/coi'.length);
      await next();
      ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
      ctx.set('Cross-Origin-Embedder-Policy', 'require-corp');
      ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
      return undefined;
    }
    if (!ctx.path.startsWith('/__models/')) return next();
    const name = ctx.path.slice('/__models/'.length);
    if (name === 'stats') {
      ctx.body = Object.fromEntries(hits);
      return undefined;
    }
    if (name === 'info') {
      const bytes = await model();
      ctx.body = { 'tiny.gguf': bytes.length, 'tiny-b.gguf': secondBytes.length };
      return undefined;
    }
    if (name === 'requests') {
      ctx.body = requests;
      return undefined;
    }
    if (name === 'reset') {
      hits.clear();
      requests = [];
      ctx.body = 'ok';
      return undefined;
    }
    if (name === 'drop') {
      drop?.();
      ctx.body = 'ok';
      return undefined;
    }
    if (name === 'release') {
      release?.();
      ctx.body = 'ok';
      return undefined;
    }
    const n = (hits.get(name) ?? 0) + 1;
    hits.set(name, n);
    const bytes = await model();
    const seen = { path: name, range: ctx.get('range') || undefined, ifRange: ctx.get('if-range') || undefined };
    requests.push(seen);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    ctx.type = 'application/octet-stream';
    if (name === 'resume.gguf' || name === 'norange.gguf' || name === 'changed.gguf') {
      // The first request holds mid-file so a test can cancel it (or the connection drops).
      if (n === 1) {
        seen.status = 200;
        return hold(ctx, bytes, { etag: '"tiny-1"', 'content-length': String(bytes.length) });
      }
      if (name === 'changed.gguf') whole(ctx, secondBytes, '"tiny-2"');
      else whole(ctx, bytes, '"tiny-1"', name === 'resume.gguf');
      seen.status = ctx.status;
      return undefined;
    }
    if (name === 'tiny.gguf') {
      whole(ctx, bytes, '"tiny-1"');
    } else if (name === 'tiny-b.gguf') {
      whole(ctx, secondBytes, '"tiny-2"');
    } else if (name === 'short.gguf') {
      ctx.body = bytes.subarray(0, bytes.length >> 1);
    } else if (name === 'cut.gguf') {
      ctx.respond = false;
      const res = ctx.res;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' });
      res.write(bytes.subarray(0, bytes.length >> 1), () => res.destroy());
    } else if (name === 'held.gguf') {
      await hold(ctx, bytes);
    } else {
      ctx.status = 404;
      ctx.body = 'no such model (test)';
    }
    seen.status = ctx.respond === false ? 200 : ctx.status;
    return undefined;
  };
}

/**
 * `executeServerCommand('main-thread-trace', { action: 'start' | 'stop' })`: traces the test page over
 * the DevTools protocol; `stop` returns the page's main-thread tasks that ran over 50 ms of CPU time
 * (`tdur`), with their wall time. CPU time, unlike wall time, does not grow when a loaded machine
 * pauses the page, so a test can hold the page to "no long task" on any machine.
 */
export function mainThreadTracePlugin() {
  const traces = new WeakMap();
  return {
    name: 'agent-surface-main-thread-trace',
    async executeCommand({ command, payload, session }) {
      if (command !== 'main-thread-trace') return undefined;
      const page = session.browser.getPage(session.id);
      if (payload?.action === 'start') {
        const cdp = await page.createCDPSession();
        const events = [];
        cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
        await cdp.send('Tracing.start', { categories: 'toplevel,disabled-by-default-devtools.timeline', transferMode: 'ReportEvents' });
        traces.set(page, { cdp, events });
        return true;
      }
      const trace = traces.get(page);
      if (!trace) throw new Error('main-thread-trace: stop without start');
      traces.delete(page);
      const complete = new Promise((resolve) => trace.cdp.once('Tracing.tracingComplete', resolve));
      await trace.cdp.send('Tracing.end');
      await complete;
      await trace.cdp.detach().catch(() => {});
      const mainThreads = new Set(
        trace.events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
      );
      const tasks = trace.events.filter((e) => e.name === 'RunTask' && e.ph === 'X' && mainThreads.has(`${e.pid}:${e.tid}`));
      return {
        tasks: tasks.length,
        withThreadTime: tasks.filter((e) => typeof e.tdur === 'number').length,
        long: tasks.filter((e) => (e.tdur ?? e.dur) > 50_000).map((e) => ({ cpuMs: Math.round((e.tdur ?? e.dur) / 1000), wallMs: Math.round(e.dur / 1000) })),
        maxCpuMs: Math.round(Math.max(0, ...tasks.map((e) => e.tdur ?? 0)) / 1000),
      };
    },
  };
}
