/**
 * Contract tokens: `sha256-<base64url>` (43 characters, no padding) of the canonical JSON of the
 * normalized contract. The compiler computes them in Node (`computeContractToken` in
 * `agent-surface-kit/compiler`); the runtime only compares strings, so it needs no hashing.
 */

export const CONTRACT_TOKEN_PREFIX = 'sha256-';

const TOKEN_PATTERN = /^sha256-[A-Za-z0-9_-]{43}$/;

/** Whether `value` has the shape of a contract token (says nothing about which contract). */
export function isContractToken(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_PATTERN.test(value);
}
