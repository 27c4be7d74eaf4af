/**
 * What a local adapter loads on its first `prepare()` or `run()`, as one chunk: the download, the
 * engines' glue (Chrome's Prompt API with its native tool loops, the wasm engine's load), the
 * prompt format, the grammar and the run loop. A page that prepares a model needs most of it, and
 * one chunk compresses better than several. The engine itself (@wllama/wllama) loads later still,
 * with the first GGUF model, and never for Chrome's built-in model.
 */
export { loadWasm } from './engines/wllama.js';
export { loadPromptApi } from './engines/prompt-api.js';
export { steps } from './steps.js';
