/**
 * Instance ids for `<agent-view>` elements without an `instance`, grouped by registry and name. Two
 * or more with one name get instance ids so their capabilities stay apart: the views present
 * together at first get "1", "2", … in document order; a view that joins later gets the next number,
 * and a number once given is never taken back or handed to another view while its holder stays. So a
 * copy inserted above the page's own view (injected markup, say) cannot renumber it and take its
 * place. A view alone keeps no instance id, and keeps none when others join.
 *
 * Only the capabilities inside such a view need its number, and they cannot register before the
 * element's lazy chunk is here, so this comes with that chunk (declared.ts): until it is, the view
 * tells its capabilities it is still placing itself (agent-view.ts).
 */
import { DEV_MODE, issueWarning } from '../core/dev.js';
import type { AgentSurfaceRegistry } from '../core/types.js';
import { sortInTreeOrder } from './tree-order.js';

interface ViewGroup {
  readonly members: Set<ViewRecord>;
  /** The last number given (the first view alone counts as 1). */
  last: number;
}

/** One view's place, made by the element and changed only here. */
export interface ViewRecord {
  readonly el: Element & { readonly name: string };
  /** Recomputes the view's context (agent-view.ts). */
  readonly refresh: () => void;
  group?: ViewGroup | undefined;
  /** Whether the group's batch has placed it (given it a number or none). */
  placed?: boolean;
  /** Its number, when it has one. */
  auto?: string | undefined;
}

const groups = new WeakMap<AgentSurfaceRegistry, Map<string, ViewGroup>>();
const dirtyGroups = new Set<ViewGroup>();

/** Joins the group of same-named views without an instance in `registry`, or leaves it (`undefined`). */
export function placeView(v: ViewRecord, registry: AgentSurfaceRegistry | undefined): void {
  let group: ViewGroup | undefined;
  if (registry) {
    let byName = groups.get(registry);
    if (!byName) groups.set(registry, (byName = new Map()));
    group = byName.get(v.el.name);
    if (!group) byName.set(v.el.name, (group = { members: new Set(), last: 0 }));
  }
  if (group === v.group) return;
  const old = v.group;
  if (old) {
    old.members.delete(v);
    // An empty group starts over: there is no view left whose number could change.
    if (!old.members.size) old.last = 0;
    schedule(old);
  }
  v.group = group;
  v.placed = false;
  if (group) {
    group.members.add(v);
    schedule(group);
  } else {
    v.auto = undefined;
  }
}

/** A moved view keeps its group, but the order may have changed: the group looks again. */
export function regroupView(v: ViewRecord): void {
  if (v.group) schedule(v.group);
}

function schedule(group: ViewGroup): void {
  if (!dirtyGroups.size) queueMicrotask(flush);
  dirtyGroups.add(group);
}

function flush(): void {
  const pending = [...dirtyGroups];
  dirtyGroups.clear();
  for (const group of pending) {
    const members = [...group.members];
    if (members.length > 1 && DEV_MODE) {
      const name = members[0]!.el.name;
      issueWarning(
        'duplicate-view',
        name,
        `${members.length} <agent-view name="${name}"> elements have no instance="…": give each a distinct instance ` +
          `so agents can tell them apart. Until then they get instance ids "1", "2", … in the order they arrived.`,
      );
    }
    // Only newcomers get a place; the others keep theirs, whatever the document order now is.
    const alone = members.length === 1 && group.last === 0;
    const newcomers = new Map(members.filter((view) => !view.placed).map((view) => [view.el, view]));
    for (const el of sortInTreeOrder([...newcomers.keys()])) {
      const view = newcomers.get(el)!;
      view.placed = true;
      const auto = alone ? undefined : String(++group.last);
      if (alone) group.last = 1;
      view.auto = auto;
      view.refresh();
    }
  }
}
