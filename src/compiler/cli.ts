/** `agent-surface` command line. */
export async function main(_argv: string[]): Promise<number> {
  console.error('agent-surface: not implemented yet');
  return 1;
}
