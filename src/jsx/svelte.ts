/**
 * `agent-surface-kit/jsx/svelte`: the kit's elements in Svelte 5's `SvelteHTMLElements`, with their
 * properties and `on<event-name>` listeners, for svelte-check.
 */
import type { HTMLAttributes } from 'svelte/elements';
import type { AgentElement, AgentElementProps, AgentTagName, OnEventProps } from './common.js';

/** The attributes Svelte accepts on `<Tag>`. */
export type AgentSvelteProps<Tag extends AgentTagName> = Omit<HTMLAttributes<AgentElement<Tag>>, keyof AgentElementProps<Tag>> &
  AgentElementProps<Tag> &
  OnEventProps<Tag>;

export type AgentSvelteElements = { [Tag in AgentTagName]: AgentSvelteProps<Tag> };

declare module 'svelte/elements' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SvelteHTMLElements extends AgentSvelteElements {}
}
