// wllama runs multi-threaded where the page is cross-origin isolated, and on one thread elsewhere.
// The test page itself cannot be isolated, so the test server opens a page of its own in a new tab
// (test/adapters/fixtures/local-threads.html), once under /__models/coi/ (COOP/COEP headers) and
// once without, traces it over the DevTools protocol, and returns what the page saw with the trace:
// the threads wllama reports, the dedicated worker threads that did work (wllama's worker and its
// pthreads), and the main-thread tasks over 50 ms of CPU time (see local-longtask.browser.test.ts).
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import { waitUntil } from '../until.js';

interface PageResult {
  error?: string;
  isolated: boolean;
  cores: number;
  threads?: number;
  parts: string[];
  input: { n: number };
  longTasks: number[];
  scripts: string[];
}
interface Trace {
  tasks: number;
  withThreadTime: number;
  long: Array<{ cpuMs: number; wallMs: number }>;
  maxCpuMs: number;
  workers: Array<{ cpuMs: number }>;
}

let n = 0;
async function open(isolated: boolean): Promise<{ result: PageResult; trace: Trace }> {
  const path = `${isolated ? '/__models/coi' : ''}/test/adapters/fixtures/local-threads.html?cache=threads-${Date.now()}-${n++}`;
  await executeServerCommand('traced-page', { action: 'open', path });
  let result: PageResult | null = null;
  let trace: Trace | undefined;
  try {
    await waitUntil(async () => (result = (await executeServerCommand<{ result: PageResult | null }, { action: string }>('traced-page', { action: 'result' }))!.result) !== null, 'the page never finished', { timeout: 150000, interval: 500 });
  } finally {
    trace = await executeServerCommand<Trace, { action: string }>('traced-page', { action: 'close' });
  }
  expect(result!.error, result!.error).to.equal(undefined);
  return { result: result!, trace: trace! };
}

function expectResponsive({ result, trace }: { result: PageResult; trace: Trace }) {
  expect(result.parts).to.deep.equal(['message-start', 'tool-call', 'tool-result', 'step-finish', 'finish']);
  expect([1, 2, 3]).to.include(result.input.n);
  expect(trace.tasks, 'the trace has main-thread tasks').to.be.greaterThan(10);
  // Thread times are on: most tasks carry one. Chromium leaves it out of some tasks of a few
  // microseconds (up to 4% of them here on a loaded machine); a task without one is judged by its
  // wall time, which is never below its CPU time, so none over 50 ms can hide among them.
  expect(trace.withThreadTime, 'the trace has CPU times').to.be.at.least(trace.tasks * 0.5);
  const observers = `the observers saw long tasks of ${result.longTasks.join(', ') || 'none'} ms wall; scripts of ours: ${result.scripts.join('; ') || 'none'}`;
  expect(trace.long, `${observers}; longest task ${trace.maxCpuMs} ms CPU`).to.deep.equal([]);
}

describe('createLocalAdapter: wllama threads follow cross-origin isolation (generated model)', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(170000);

  it('in a cross-origin isolated page (COOP/COEP): multi-threaded, a run finishes, no long task', async () => {
    const page = await open(true);
    const { result, trace } = page;
    expect(result.isolated).to.equal(true);
    // Threads: the cores, at most 4 (this machine's count decides how many), and more than one.
    expect(result.threads).to.equal(Math.min(4, result.cores));
    expect(result.threads).to.be.greaterThan(1);
    // wllama's worker plus one pthread worker per thread in its pool ran while traced (at least their startup).
    expect(trace.workers.filter((w) => w.cpuMs > 0).length, JSON.stringify(trace.workers)).to.be.at.least(1 + result.threads!);
    expectResponsive(page);
    console.log(`isolated page: ${result.threads} threads on ${result.cores} cores; worker CPU ms ${trace.workers.map((w) => w.cpuMs).join(', ')}`);
  });

  it('in a page that is not isolated: one thread, a run finishes, no long task', async () => {
    const page = await open(false);
    const { result, trace } = page;
    expect(result.isolated).to.equal(false);
    expect(result.threads).to.equal(1);
    // Only wllama's own worker: no pthreads.
    expect(trace.workers.filter((w) => w.cpuMs > 0).length, JSON.stringify(trace.workers)).to.equal(1);
    expectResponsive(page);
    console.log(`page not isolated: ${result.threads} thread; worker CPU ms ${trace.workers.map((w) => w.cpuMs).join(', ')}`);
  });
});
