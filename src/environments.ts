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
 * Services DGII does not publish in an environment, named by the first segment of their path
 * below the environment's base. Descripción Técnica v1.6, bitácora of 28-12-2020, item 2: "Se
 * quitaron las URL del servicio de anulación rangos, consulta estado, consulta trackids y
 * consulta directorio para el ambiente de certificación"; v1.6 lists them for TesteCF and eCF only.
 */
export const UNPUBLISHED_SERVICES = {
  TesteCF: [],
  CerteCF: ['anulacionrangos', 'consultaestado', 'consultatrackids', 'consultadirectorio'],
  eCF: [],
} as const satisfies Record<Environment, readonly string[]>;

/** Whether DGII publishes the service (the first segment of its path) in the environment. */
export function publishes(environment: Environment, service: string): boolean {
  return !(UNPUBLISHED_SERVICES[environment] as readonly string[]).includes(service.toLowerCase());
}

/**
 * DGII's "Estatus Servicios" host (Descripción Técnica v1.6): one for every environment, which
 * its answers name by `ambiente`. DGII publishes it for production only.
 */
export const DGII_STATUS_BASE_URL = 'https://statusecf.dgii.gov.do';
