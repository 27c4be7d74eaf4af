// Shared by the CLI tests: run the CLI's main() in this process (cheaper than a spawn) from a folder,
// with console output captured.
import { main } from '../../src/compiler/cli.js';

export async function runCliIn(dir: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error, warn } = console;
  const cwd = process.cwd();
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  console.error = console.warn = (...a: unknown[]) => void err.push(a.join(' '));
  process.chdir(dir);
  try {
    const status = await main(args);
    return { status, stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    process.chdir(cwd);
    Object.assign(console, { log, error, warn });
  }
}
