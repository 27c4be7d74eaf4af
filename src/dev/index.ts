/**
 * `agent-surface-kit/dev`: what a page uses while developing, before its contracts are compiled.
 * `devAuthority()` admits any valid contract (and says so in the console), validating with the
 * interpreter validator, which loads `@cfworker/json-schema` on first use. Never reachable from
 * the core entry: a production bundle without code splitting leaves the interpreter out.
 */
export { devAuthority, createInterpreterValidator, DEV_TOKEN } from '../core/authority.js';
