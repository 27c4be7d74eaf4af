/**
 * What configures approval controls (the activation delay, the framing opt-in), apart from the
 * guard (approval-guard.ts re-exports it all) so an element and the public entry can use it without
 * loading the guard, which lives in the dialog's lazy chunk.
 */
import { DEV_MODE } from '../core/dev.js';

/** The activation delay when none (or no valid one) is given. */
export const ACTIVATION_DELAY_DEFAULT_MS = 500;
/** The lowest delay markup can ask for, and script too outside development builds. */
export const ACTIVATION_DELAY_FLOOR_MS = 300;

const DELAY_GRAMMAR = /^\d{1,9}(?:\.\d+)?$/;

/** The delay an `activation-delay` attribute asks for, failing closed to the default. */
export function activationDelayFromMarkup(value: string | null | undefined): number {
  return activationDelayFromScript(DELAY_GRAMMAR.test(value?.trim() ?? '') ? Number(value) : NaN, false);
}

/**
 * The delay a script asks for. Below the floor only in development builds (`dev`), so tests and
 * demos can be quick while a production page cannot be configured into instant approvals.
 */
export function activationDelayFromScript(value: unknown, dev: boolean = DEV_MODE): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return ACTIVATION_DELAY_DEFAULT_MS;
  return dev ? value : Math.max(ACTIVATION_DELAY_FLOOR_MS, value);
}


let framingAllowed: '*' | ReadonlySet<string> | undefined;

/**
 * Lets approvals work while the page is framed by the given origins (or any, `'*'`). Script only,
 * by design: no attribute can turn this on. Call it with `[]` to turn it off again.
 */
export function allowFramedApprovals(origins: '*' | readonly string[]): void {
  if (origins === '*') framingAllowed = '*';
  // Anything but a string never equals an origin, so the list needs no filtering.
  else if (Array.isArray(origins)) framingAllowed = new Set(origins);
  else throw new TypeError('allowFramedApprovals: pass "*" or origins');
}

/** @internal What `allowFramedApprovals` allowed (read by the guard). */
export const framedApprovalsAllowed = (): '*' | ReadonlySet<string> | undefined => framingAllowed;
