/**
 * `agent-surface-kit/jsx/vue`: the kit's elements as Vue 3 `GlobalComponents`, so vue-tsc checks
 * their props (bind objects and functions with `.prop`) and types `@agent-invocation` and the other
 * events. Vue still needs `compilerOptions.isCustomElement` at run time.
 */
import type { AllowedComponentProps, ComponentCustomProps, HTMLAttributes, VNodeProps } from 'vue';
import type { AgentElement, AgentElementProps, AgentTagName, VueEventProps } from './common.js';

/** The props vue-tsc accepts on `<Tag>`. */
export type AgentVueProps<Tag extends AgentTagName> = Omit<HTMLAttributes, keyof AgentElementProps<Tag>> &
  AllowedComponentProps &
  ComponentCustomProps &
  VNodeProps &
  AgentElementProps<Tag> &
  VueEventProps<Tag>;

export type AgentVueComponents = {
  [Tag in AgentTagName]: new () => AgentElement<Tag> & { $props: AgentVueProps<Tag> };
};

declare module 'vue' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface GlobalComponents extends AgentVueComponents {}
}
