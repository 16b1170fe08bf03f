// DGII's three environments; {env} in a path selects one. Documents, sequences and
// idempotency keys are separate per environment.
export const ENVIRONMENTS = ['TesteCF', 'CerteCF', 'eCF'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

const BY_LOWER = new Map<string, Environment>(ENVIRONMENTS.map((e) => [e.toLowerCase(), e]));

/** The canonical spelling of an environment name matched case-insensitively, or null. */
export function parseEnvironment(value: string): Environment | null {
  return BY_LOWER.get(value.toLowerCase()) ?? null;
}
