/**
 * `agent-surface-kit/jsx/react`: the kit's elements in React 19's JSX (`React.JSX.IntrinsicElements`),
 * with their properties and `on<event-name>` listeners, as React 19 sets and adds them on custom elements.
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { AgentElement, AgentElementProps, AgentTagName, OnEventProps } from './common.js';

/** The props React accepts on `<Tag>`. */
export type AgentReactProps<Tag extends AgentTagName> = Omit<
  DetailedHTMLProps<HTMLAttributes<AgentElement<Tag>>, AgentElement<Tag>>,
  keyof AgentElementProps<Tag>
> &
  AgentElementProps<Tag> &
  OnEventProps<Tag>;

export type AgentReactElements = { [Tag in AgentTagName]: AgentReactProps<Tag> };

declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface IntrinsicElements extends AgentReactElements {}
  }
}
