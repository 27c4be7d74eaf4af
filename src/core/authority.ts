/**
 * Authorities (DESIGN section 2): the compiler authority (`compiler-authority.ts`, re-exported
 * here) and `devAuthority()`, which admits any valid contract, warns once per capability that it
 * does so, and validates with `@cfworker/json-schema`, imported lazily (an interpreter: also
 * CSP-safe). `agent-surface-kit/dev` exports the dev parts; the core entry never reaches this
 * module, so a bundler without code splitting leaves the interpreter out of a production app.
 */
import { canonicalJson } from './canonical-json.js';
import { admitted, invalid } from './compiler-authority.js';
import { tryNormalizeContract } from './contract.js';
import { deepFreeze, lazyModule } from './util.js';
import type { Admission, AgentSurfaceAuthority, AuthorityEntry, CapabilityContract, JsonSchema, JsonValue, ValidationOutcome, ValueValidator } from './types.js';

export * from './compiler-authority.js';

// ---------------------------------------------------------------------------------------------
// @cfworker/json-schema (interpreter) → ValidationIssue

// Fetched on first validation; a failed load (the network) is retried by the next one.
const interpreter = lazyModule(() => import('./interpreter.js'));

/**
 * A validator interpreting `schema` with `@cfworker/json-schema`. The interpreter and our reading
 * of its errors (interpreter.ts) load on first use: calls made before then return a Promise,
 * later ones answer synchronously.
 */
export function createInterpreterValidator(schema: JsonSchema): ValueValidator {
  let run: ((value: JsonValue) => ValidationOutcome) | undefined;
  return (value: JsonValue) => {
    if (run) return run(value);
    if (interpreter.module) return (run = interpreter.module.interpreterValidator(schema))(value);
    return interpreter.load().then((m) => (run ??= m.interpreterValidator(schema))(value));
  };
}

// ---------------------------------------------------------------------------------------------
// Dev authority

/** The token a dev authority reports for contracts that came without one. */
export const DEV_TOKEN = 'dev-unauthorized';

/**
 * Admits every contract that passes the definition checks, with no token: for development only.
 * Warns once per capability id (always, not only in development builds: shipping it is a mistake
 * someone must see) and validates through `@cfworker/json-schema`, imported on first validation.
 */
export function devAuthority(): AgentSurfaceAuthority {
  const admittedById = new Map<string, AuthorityEntry>();
  // Validators per distinct contract: input, then output when there is an output schema.
  const byCanonical = new Map<string, [ValueValidator, ValueValidator | undefined]>();
  const warned = new Set<string>();

  return Object.freeze({
    kind: 'dev' as const,
    contract(id: string): AuthorityEntry | undefined {
      return admittedById.get(id);
    },
    admit(contract: CapabilityContract, token: string | undefined | null): Admission {
      const normalized = tryNormalizeContract(contract);
      if (!normalized.ok) return invalid(contract, normalized.problems);
      const c = deepFreeze(normalized.contract);
      if (!warned.has(c.id)) {
        warned.add(c.id);
        console.warn(
          `[agent-surface-kit DEV_AUTHORITY] "${c.id}" is admitted without compile-time authorization by devAuthority(): use \`agent-surface compile\` and createCompilerAuthority() before shipping.`,
        );
      }
      const canonical = canonicalJson(c);
      let validators = byCanonical.get(canonical);
      if (!validators) {
        validators = [
          createInterpreterValidator(c.inputSchema),
          c.outputSchema && createInterpreterValidator(c.outputSchema),
        ];
        byCanonical.set(canonical, validators);
      }
      const t = typeof token === 'string' && token !== '' ? token : DEV_TOKEN;
      admittedById.set(c.id, Object.freeze({ contract: c, token: t }));
      return admitted(c, t, ...validators);
    },
  });
}
