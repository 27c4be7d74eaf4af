/**
 * A module fetched on first need and remembered; a failed fetch is forgotten so the next need tries
 * again. The chat's own copy of core's `lazyModule` (three lines): importing that one would make the
 * kit's CDN file export it for the chat's CDN file, and that file is at its size target.
 */
export function lazy<M>(fetch: () => Promise<M>): { module?: M; load(): Promise<M> } {
  let pending: Promise<M> | undefined;
  const holder: { module?: M; load(): Promise<M> } = {
    load: () => (pending ??= fetch().then((m) => (holder.module = m), (e: unknown) => ((pending = undefined), Promise.reject(e)))),
  };
  return holder;
}
