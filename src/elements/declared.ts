/**
 * Seam (see rollup.config.js): how `<agent-capability>` reaches its markup reader. Here it is linked
 * statically and always there; the CDN build's declared.cdn.ts fetches it on the first element.
 */
import { declaredContract } from './declared-contract.js';

export type DeclaredContractReader = typeof declaredContract;

/** The markup reader, or `undefined` while it is on its way (never in this build). */
export const declaredContractReader = (): DeclaredContractReader | undefined => declaredContract;

/** Settles once the reader is there (`true`) or could not be loaded (`false`). */
export const declaredContractLoaded = (): Promise<boolean> => Promise.resolve(true);
