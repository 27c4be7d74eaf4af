/** The CDN entry: everything browser-side (core, elements, WebMCP), lit bundled. */
export * from './index.js';
export * from './elements/index.js';
export * from './webmcp/index.js';
