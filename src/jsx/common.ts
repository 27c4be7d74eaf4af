/**
 * What every framework file of `agent-surface-kit/jsx` shares: the props of each element (from the
 * generated table in elements.ts) and the typed behaviour of `<agent-capability>`. A capability's
 * `handler` gets its input type from the manifest's `.d.ts` (CapabilityTypeMap, filled by
 * `agent-surface compile`), picked by the `token` the element is given; without those types it gets a
 * `JsonObject`. Types only: nothing here exists at run time.
 */
import type {
  CapabilityContract,
  CapabilityHandler,
  CapabilityInput,
  CapabilityTypeMap,
  InvocationContext,
  ObservationReader,
} from '../core/types.js';
import type { AgentElementTags } from './elements.js';

export type { AgentElementTags } from './elements.js';

/** The tags of the kit's elements. */
export type AgentTagName = keyof AgentElementTags;

/** Capability ids the manifests' `.d.ts` files describe (none without them). */
export type KnownCapabilityId = Extract<keyof CapabilityTypeMap, string>;

type TokenOf<Id extends KnownCapabilityId> = CapabilityTypeMap[Id] extends { token: infer T extends string } ? T : string;

/**
 * `<agent-capability>` given a contract from a typed manifest: its `token` (a string literal in the
 * manifest's `.d.ts`) says which capability it is, so `handler` and `read` get that input type.
 */
export interface TypedCapabilityBehaviour<Id extends KnownCapabilityId> {
  token: TokenOf<Id>;
  contract?: CapabilityContract & { readonly id: Id };
  handler?: (input: CapabilityInput<Id>, ctx: InvocationContext) => unknown;
  read?: (ctx: InvocationContext, input: CapabilityInput<Id>) => unknown;
}

/**
 * `<agent-capability>` without typed contract: any JSON object as input. Once a manifest's types are
 * in the program, a token must be one of theirs (a declaration without a token is still allowed:
 * markup read by `devAuthority()`).
 */
export interface UntypedCapabilityBehaviour {
  token?: [KnownCapabilityId] extends [never] ? string : undefined;
  contract?: CapabilityContract;
  handler?: CapabilityHandler;
  read?: ObservationReader;
}

/** `token`, `contract`, `handler` and `read` of `<agent-capability>`. */
export type CapabilityBehaviour =
  | { [Id in KnownCapabilityId]: TypedCapabilityBehaviour<Id> }[KnownCapabilityId]
  | UntypedCapabilityBehaviour;

type BehaviourKey = keyof UntypedCapabilityBehaviour;

/** Properties and attributes of `<Tag>`, framework-neutral. */
export type AgentElementProps<Tag extends AgentTagName> = Tag extends 'agent-capability'
  ? Omit<AgentElementTags[Tag]['properties'], BehaviourKey> & AgentElementTags[Tag]['attributes'] & CapabilityBehaviour
  : AgentElementTags[Tag]['properties'] & AgentElementTags[Tag]['attributes'];

/** Event name → event class of `<Tag>`. */
export type AgentElementEvents<Tag extends AgentTagName> = AgentElementTags[Tag]['events'];

/** The DOM element of `<Tag>`. */
export type AgentElement<Tag extends AgentTagName> = AgentElementTags[Tag]['element'];

/** `on<event-name>` listeners, as React 19, Preact and Svelte 5 take them on custom elements. */
export type OnEventProps<Tag extends AgentTagName> = {
  [E in Extract<keyof AgentElementEvents<Tag>, string> as `on${E}`]?: (event: AgentElementEvents<Tag>[E]) => void;
};

type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/** `onAgentInvocation`-style listeners: what Vue's `@agent-invocation` binds. */
export type VueEventProps<Tag extends AgentTagName> = {
  [E in Extract<keyof AgentElementEvents<Tag>, string> as `on${Capitalize<Camel<E>>}`]?: (
    event: AgentElementEvents<Tag>[E],
  ) => void;
};
