/**
 * What the chat loads on first need to project a registry: the toolset factory. A module of its own
 * so the lazy chunk imports the function, rather than the kit's CDN file building a namespace object
 * of core/toolset.js for the chat.
 */
export { createAgentToolset } from '../core/toolset.js';
