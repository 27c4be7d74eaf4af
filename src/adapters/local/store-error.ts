/** A model file could not be downloaded or stored; the message says why in words. */
export class StoreError extends Error {
  override name = 'StoreError';
}
