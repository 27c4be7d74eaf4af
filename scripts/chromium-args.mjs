// The flags every headless Chromium the project starts needs here (root, no GPU, no background
// traffic): the test runner, the Node tests that drive Chromium themselves, and the benchmarks.
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-setuid-sandbox',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-gpu',
];
