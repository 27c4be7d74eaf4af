// Test server routes for the local adapter's browser tests: model files generated at startup
// (scripts/tiny-gguf.mjs), broken variants, a download that waits for the test, fetch counts, and
// a cross-origin isolated page for the multi-threaded engine.
//
//   /__models/tiny.gguf         the tiny GGUF (same bytes every run)
//   /__models/tiny-b.gguf       a second model (another seed), for model choice
//   /__models/notemplate.gguf   the tiny GGUF without a chat template
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
//   /__models/error.gguf        500
//   /__models/long.gguf         chunked; the whole file and then more bytes
//   /__models/lying.gguf        Content-Length of the whole file, half of it, then the connection drops
//   /__models/badrange.gguf     like resume.gguf, but a Range request gets a 206 of the whole file (bytes 0-)
//   /__models/spa.gguf          200 with an HTML page, as an app server's fallback route answers a wrong path
//   /__models/gzip.gguf         the tiny GGUF gzip-compressed on the way (Content-Encoding: no usable length), held
//                               like held.gguf after a quarter of the compressed body; a Range request gets an
//                               uncompressed 206, as servers answer one
//   /__models/chunked.gguf      the tiny GGUF chunked (no Content-Length) by a server that ignores Range
//   /__models/chunked-etag.gguf the same with a strong ETag: a validator, and still no size and no ranges
//   /__models/info              JSON: the byte size of each whole model
//   /__models/stats             JSON: requests per path since the last /__models/reset
//   /__models/requests          JSON: each model request since the last reset ({ path, range, ifRange, status }, and
//                               `cut: true` once a held request's connection closed before the whole file went out)
// tiny.gguf and tiny-b.gguf answer ranges too (strong ETags), as static file servers and CDNs do.
//   /__models/coi/<path>        any file of the project with COOP/COEP headers (crossOriginIsolated pages)
// Ranges answered are `bytes=N-` and `bytes=N-M`.
import { gzipSync } from 'node:zlib';

let modelBytes;
let secondBytes;
const hits = new Map();
let release;
let drop;
let requests = [];

/** Answers `Range: bytes=N-` or `bytes=N-M` (honouring If-Range against `etag`) unless `ranges` is false; else the whole file. */
function whole(ctx, bytes, etag, ranges = true) {
  const range = ranges && /^bytes=(\d+)-(\d*)$/.exec(ctx.get('range'));
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
    const end = Math.min(bytes.length - 1, range[2] ? Number(range[2]) : Infinity);
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${start}-${end}/${bytes.length}`);
    ctx.body = bytes.subarray(start, end + 1);
    return;
  }
  ctx.body = bytes;
}

/** A quarter of the file, then nothing until /__models/release (or the client leaves: `seen.cut`). */
async function hold(ctx, bytes, headers = {}, seen = {}) {
  ctx.respond = false;
  const res = ctx.res;
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store', ...headers });
  res.write(bytes.subarray(0, bytes.length >> 2));
  const done = new Promise((resolve) => {
    release = resolve;
    drop = () => (res.destroy(), resolve());
    res.on('close', () => {
      if (!res.writableEnded) seen.cut = true;
      resolve();
    });
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
    if (name === 'badrange.gguf') {
      if (n === 1) {
        seen.status = 200;
        return hold(ctx, bytes, { etag: '"tiny-1"', 'content-length': String(bytes.length) }, seen);
      }
      ctx.set('ETag', '"tiny-1"');
      if (ctx.get('range')) {
        ctx.status = 206;
        ctx.set('Content-Range', `bytes 0-${bytes.length - 1}/${bytes.length}`);
      }
      ctx.body = bytes;
      seen.status = ctx.status;
      return undefined;
    }
    if (name === 'resume.gguf' || name === 'norange.gguf' || name === 'changed.gguf') {
      // The first request holds mid-file so a test can cancel it (or the connection drops).
      if (n === 1) {
        seen.status = 200;
        return hold(ctx, bytes, { etag: '"tiny-1"', 'content-length': String(bytes.length) }, seen);
      }
      if (name === 'changed.gguf') whole(ctx, secondBytes, '"tiny-2"');
      else whole(ctx, bytes, '"tiny-1"', name === 'resume.gguf');
      seen.status = ctx.status;
      return undefined;
    }
    if (name === 'tiny.gguf') {
      whole(ctx, bytes, '"tiny-1"');
    } else if (name === 'notemplate.gguf') {
      ctx.body = Buffer.from((await import('./tiny-gguf.mjs')).tinyGguf({ chatTemplate: null }));
    } else if (name === 'tiny-b.gguf') {
      whole(ctx, secondBytes, '"tiny-2"');
    } else if (name === 'short.gguf') {
      ctx.body = bytes.subarray(0, bytes.length >> 1);
    } else if (name === 'cut.gguf') {
      ctx.respond = false;
      const res = ctx.res;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' });
      res.write(bytes.subarray(0, bytes.length >> 1), () => res.destroy());
    } else if (name === 'error.gguf') {
      ctx.status = 500;
      ctx.body = 'the model store is down (test)';
    } else if (name === 'long.gguf' || name === 'lying.gguf') {
      ctx.respond = false;
      const res = ctx.res;
      const long = name === 'long.gguf';
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store', ...(long ? {} : { 'content-length': String(bytes.length) }) });
      if (long) res.end(Buffer.concat([bytes, Buffer.alloc(1000, 7)]));
      else res.write(bytes.subarray(0, bytes.length >> 1), () => res.destroy());
    } else if (name === 'gzip.gguf') {
      if (ctx.get('range')) whole(ctx, bytes, '"tiny-1"');
      else await hold(ctx, gzipSync(bytes), { 'content-encoding': 'gzip' }, seen);
    } else if (name === 'chunked.gguf' || name === 'chunked-etag.gguf') {
      ctx.respond = false;
      const res = ctx.res;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store', ...(name === 'chunked.gguf' ? {} : { etag: '"tiny-1"', 'accept-ranges': 'none' }) });
      const step = bytes.length >> 2;
      for (let i = 0; i < bytes.length; i += step) res.write(bytes.subarray(i, i + step));
      res.end();
    } else if (name === 'spa.gguf') {
      ctx.type = 'text/html';
      ctx.body = `<!doctype html><html><head><title>My app</title></head><body><div id="app"></div>${' '.repeat(4000)}</body></html>`;
    } else if (name === 'held.gguf') {
      await hold(ctx, bytes, {}, seen);
    } else {
      ctx.status = 404;
      ctx.body = 'no such model (test)';
    }
    seen.status = ctx.respond === false ? 200 : ctx.status;
    return undefined;
  };
}

const TRACE_CATEGORIES = 'toplevel,disabled-by-default-devtools.timeline';

/**
 * What a DevTools trace says about the pages' threads: the main-thread tasks that ran over 50 ms of
 * CPU time (`tdur`), with their wall time, and each dedicated worker thread's CPU time (wllama's
 * worker, and its pthreads when it runs multi-threaded).
 */
function summarize(events) {
  const threads = new Map(events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args?.name]));
  const on = (name) => new Set([...threads].filter(([, n]) => n === name).map(([id]) => id));
  const mainThreads = on('CrRendererMain');
  const workerThreads = on('DedicatedWorker thread');
  const tasks = events.filter((e) => e.name === 'RunTask' && e.ph === 'X' && mainThreads.has(`${e.pid}:${e.tid}`));
  const workerCpu = new Map();
  for (const e of events) {
    const id = `${e.pid}:${e.tid}`;
    if (e.ph === 'X' && e.name === 'RunTask' && workerThreads.has(id)) workerCpu.set(id, (workerCpu.get(id) ?? 0) + (e.tdur ?? 0));
  }
  return {
    tasks: tasks.length,
    withThreadTime: tasks.filter((e) => typeof e.tdur === 'number').length,
    long: tasks.filter((e) => (e.tdur ?? e.dur) > 50_000).map((e) => ({ cpuMs: Math.round((e.tdur ?? e.dur) / 1000), wallMs: Math.round(e.dur / 1000) })),
    maxCpuMs: Math.round(Math.max(0, ...tasks.map((e) => e.tdur ?? 0)) / 1000),
    workers: [...workerCpu.values()].map((us) => ({ cpuMs: Math.round(us / 1000) })),
  };
}

async function startTrace(page) {
  const cdp = await page.createCDPSession();
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  await cdp.send('Tracing.start', { categories: TRACE_CATEGORIES, transferMode: 'ReportEvents' });
  return { cdp, events };
}

async function stopTrace({ cdp, events }) {
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  await complete;
  await cdp.detach().catch(() => {});
  return summarize(events);
}

/**
 * Server commands for the local adapter's tests:
 *
 * - `executeServerCommand('main-thread-trace', { action: 'start' | 'stop' })` traces the test page over
 *   the DevTools protocol; `stop` returns `summarize()`'s view. CPU time, unlike wall time, does not
 *   grow when a loaded machine pauses the page, so a test can hold the page to "no long task" on any machine.
 * - `executeServerCommand('traced-page', { action: 'open', path })` opens `path` (for example under
 *   `/__models/coi/`, a cross-origin isolated page, which the test page itself cannot be) in a new
 *   tab, traced; `{ action: 'result' }` returns `{ result }`, the page's `window.__result` (null until set);
 *   `{ action: 'close' }` closes the tab and returns `summarize()`'s view of its trace.
 */
export function mainThreadTracePlugin() {
  const traces = new WeakMap();
  const pages = new Map();
  return {
    name: 'agent-surface-main-thread-trace',
    async executeCommand({ command, payload, session }) {
      if (command === 'traced-page') {
        // In steps, each well under the test runner's 20 s limit on a command.
        if (payload?.action === 'open') {
          const opener = session.browser.getPage(session.id);
          const page = await opener.browserContext().newPage();
          const trace = await startTrace(page);
          pages.set(session.id, { page, trace });
          await page.goto(new URL(payload.path, opener.url()).href);
          return true;
        }
        const open = pages.get(session.id);
        if (!open) throw new Error('traced-page: no page is open');
        // Wrapped: a command that returns null counts as not handled.
        if (payload?.action === 'result') return { result: await open.page.evaluate(() => window.__result ?? null) };
        pages.delete(session.id);
        try {
          return await stopTrace(open.trace);
        } finally {
          await open.page.close().catch(() => {});
        }
      }
      if (command !== 'main-thread-trace') return undefined;
      const page = session.browser.getPage(session.id);
      if (payload?.action === 'start') {
        traces.set(page, await startTrace(page));
        return true;
      }
      const trace = traces.get(page);
      if (!trace) throw new Error('main-thread-trace: stop without start');
      traces.delete(page);
      return stopTrace(trace);
    },
  };
}
