/**
 * What happens when several `<agent-capability>` elements claim one (capability, instance) of one
 * registry. Never document order or who came first: markup can copy an authorized declaration exactly
 * (its token included) and place it anywhere, but it cannot set `.handler` or `.read`. So the one
 * whose behaviour the page's script set is registered; when none or several have one, which is the
 * page's own cannot be told, and none is. A declaration the authority refuses is no claimant: it is
 * refused as ever, so unauthorized markup cannot knock the page's own out.
 *
 * Loaded with `import()` on the first conflict (a page without one never downloads it); until it is
 * here, no claimant registers that was not registered already (capability-registration.ts).
 */
import type { DefinitionErrorPayload } from '../core/types.js';

/** One claimant, as the element hands it over. */
export interface ClaimMember {
  /** `.handler` or `.read` was set (by script: there is no attribute for either). */
  readonly scripted: boolean;
  /** Whether the registry's authority admits its contract with its token. */
  admissible(): boolean;
  /** Registers (or is refused by the registry as usual). */
  take(): void;
  /** Stays unregistered, reporting why (a console error and `agent-capability-refused`). */
  drop(error: DefinitionErrorPayload): void;
}

export function settleConflict(members: readonly ClaimMember[], capabilityId: string, instanceId: string | undefined): void {
  const claimants = members.filter((m) => m.admissible() || (m.take(), false));
  if (claimants.length < 2) {
    claimants[0]?.take();
    return;
  }
  const scripted = claimants.filter((m) => m.scripted);
  const winner = scripted.length === 1 ? scripted[0] : undefined;
  const what = `${capabilityId}${instanceId !== undefined ? ` (instance ${JSON.stringify(instanceId)})` : ''}`;
  const error: DefinitionErrorPayload = {
    code: 'DUPLICATE_REGISTRATION',
    message:
      `${claimants.length} declarations claim ${what}: ` +
      (winner
        ? "another one has the behaviour the page's script set (.handler or .read), so this copy is not used."
        : "the page's script set the behaviour (.handler or .read) of none or several of them, so none is used. " +
          "Keep one declaration, give each its own instance, or set .handler on the page's own."),
    details: {
      reason: 'conflicting-declarations',
      capabilityId,
      ...(instanceId !== undefined ? { instanceId } : {}),
      claimants: claimants.length,
    },
  };
  for (const m of claimants) if (m !== winner) m.drop(error);
  winner?.take();
}
