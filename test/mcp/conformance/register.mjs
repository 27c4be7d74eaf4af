// `node --import ./register.mjs node_modules/@modelcontextprotocol/conformance/dist/index.js …`
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
