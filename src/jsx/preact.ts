/**
 * `agent-surface-kit/jsx/preact`: the kit's elements in Preact's JSX, with their properties and
 * `on<event-name>` listeners (Preact adds a listener for the name after `on` as written).
 */
import type { HTMLAttributes } from 'preact';
import type { AgentElement, AgentElementProps, AgentTagName, OnEventProps } from './common.js';

/** The props Preact accepts on `<Tag>`. */
export type AgentPreactProps<Tag extends AgentTagName> = Omit<HTMLAttributes<AgentElement<Tag>>, keyof AgentElementProps<Tag>> &
  AgentElementProps<Tag> &
  OnEventProps<Tag>;

export type AgentPreactElements = { [Tag in AgentTagName]: AgentPreactProps<Tag> };

declare module 'preact' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface IntrinsicElements extends AgentPreactElements {}
  }
}
