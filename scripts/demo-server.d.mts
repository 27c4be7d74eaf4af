import type { Server } from 'node:http';

/** The dev server `npm start` runs for the demo (see demo-server.mjs): the parts callers use. */
export interface DemoServer {
  config: { port: number };
  server?: Server;
  stop(): Promise<unknown>;
}

export declare function startDemoServer(options?: { port?: number; hostname?: string }): Promise<DemoServer>;
