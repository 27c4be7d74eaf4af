// serveMcpStdio in this process on streams of the test's own, for what a child process would hide:
// when the server's connection ends, whoever waits on `closed` hears it.
import { after, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { serveMcpStdio } from '../../src/mcp/index.js';
import { createDevices } from './fixtures/devices.js';

before(() => mock.method(console, 'warn', () => {}));
after(() => mock.restoreAll());

const line = (message: unknown) => `${JSON.stringify(message)}\n`;

describe('serveMcpStdio on given streams', () => {
  it(
    'a message over the transport’s buffer limit ends the server: closed resolves instead of a silent process that no longer reads',
    { timeout: 120_000 },
    async () => {
      const devices = createDevices();
      const stdin = new PassThrough();
      const stdout = new PassThrough();
      const served = await serveMcpStdio(devices.registry, { stdin, stdout });
      try {
        stdin.write(
          line({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              clientInfo: { name: 'big', version: '1' },
            },
          }),
        );
        const [answer] = (await once(stdout, 'data')) as [Buffer];
        assert.match(answer.toString(), /"id":1/);
        // One line longer than the SDK's read buffer holds: its transport gives up on the stream and
        // stops reading it (and pauses stdin, so its end would never be seen either).
        stdin.write(Buffer.alloc(STDIO_DEFAULT_MAX_BUFFER_SIZE + 1, 0x61));
        // Resolves only if the server tells its caller that it stopped; before, nothing ever did, and
        // `agent-surface mcp` stayed running, deaf to its client, until it was killed.
        await served.closed;
      } finally {
        await served.close();
        devices.surface.dispose();
      }
    },
  );
});
