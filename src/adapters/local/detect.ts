/**
 * What this device offers, found without loading any engine: Chrome's Prompt API, WebGPU, cores,
 * cross-origin isolation.
 */
import { why } from './words.js';
import type { EngineCheck, LanguageModelLike } from './types.js';

export const LANGUAGES = { expectedInputs: [{ type: 'text', languages: ['en'] }], expectedOutputs: [{ type: 'text', languages: ['en'] }] };

/** The global `LanguageModel`, when this browser has one. */
export function globalLanguageModel(): LanguageModelLike | undefined {
  const lm = (globalThis as { LanguageModel?: LanguageModelLike }).LanguageModel;
  return lm && typeof lm.availability === 'function' && typeof lm.create === 'function' ? lm : undefined;
}

export async function promptApiAvailability(lm: LanguageModelLike): Promise<EngineCheck> {
  let availability: string;
  try {
    availability = await lm.availability(LANGUAGES);
  } catch (e) {
    return { state: 'unavailable', reason: `Chrome's built-in model cannot be used here (${why(e)}).` };
  }
  return availability === 'available'
    ? { state: 'cached' }
    : availability === 'downloadable'
      ? { state: 'needs-download' }
      : availability === 'downloading'
        ? { state: 'downloading', progress: 0 }
        : { state: 'unavailable', reason: "Chrome's built-in model is not available on this device." };
}

/**
 * Whether WebGPU can run here. `navigator.gpu` alone says little: Chromium on Linux and headless
 * Chromium have it and give no adapter. A browser that takes seconds to answer counts as none.
 */
export const hasWebGPU = (): Promise<boolean> =>
  Promise.race([
    (async () => !!(await (globalThis.navigator as { gpu?: { requestAdapter(): Promise<unknown> } } | undefined)?.gpu?.requestAdapter()))().catch(() => false),
    new Promise<boolean>((r) => setTimeout(r, 3000, false)),
  ]);

/** The caveat for a download card when this device will run the model slowly. */
export function slowDeviceNote(gpu: boolean): string | undefined {
  const nav = globalThis.navigator as Navigator | undefined;
  const notes: string[] = [];
  if (!gpu) notes.push('No WebGPU here: the model runs on the CPU, slowly.');
  const cores = nav?.hardwareConcurrency ?? 0;
  if (cores && cores <= 4) notes.push(`This device has ${cores} cores: replies will come slowly.`);
  else if (globalThis.crossOriginIsolated !== true) notes.push('This page is not cross-origin isolated, so the model uses one thread.');
  return notes.length ? notes.join(' ') : undefined;
}
