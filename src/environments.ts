// DGII's three environments; {env} in a path selects one. Documents, sequences and
// idempotency keys are separate per environment.
export const ENVIRONMENTS = ['TesteCF', 'CerteCF', 'eCF'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

const BY_LOWER = new Map<string, Environment>(ENVIRONMENTS.map((e) => [e.toLowerCase(), e]));

/** The canonical spelling of an environment name matched case-insensitively, or null. */
export function parseEnvironment(value: string): Environment | null {
  return BY_LOWER.get(value.toLowerCase()) ?? null;
}

// DGII's service addresses ("Descripción Técnica de Facturación Electrónica" v1.6). Each
// environment has its own base; type 32 summaries (RFCE) go to a separate host.

export const DGII_BASE_URLS: Readonly<Record<Environment, string>> = {
  TesteCF: 'https://ecf.dgii.gov.do/testecf',
  CerteCF: 'https://ecf.dgii.gov.do/certecf',
  eCF: 'https://ecf.dgii.gov.do/ecf',
};

export const DGII_FC_BASE_URLS: Readonly<Record<Environment, string>> = {
  TesteCF: 'https://fc.dgii.gov.do/testecf',
  CerteCF: 'https://fc.dgii.gov.do/certecf',
  eCF: 'https://fc.dgii.gov.do/ecf',
};

/**
 * DGII's "Estatus Servicios" host (Descripción Técnica v1.6): one for every environment, which
 * its answers name by `ambiente`. DGII publishes it for production only.
 */
export const DGII_STATUS_BASE_URL = 'https://statusecf.dgii.gov.do';
