// Each service's path below an environment's base URL (src/environments.ts). DGII's own
// examples spell these paths with varying capitals, and its servers match them
// case-insensitively, so the simulator does too.
export { DGII_BASE_URLS, DGII_FC_BASE_URLS } from '../../environments.ts';

/** Path of each service below an environment's base URL. */
export const DGII_PATHS = {
  seed: '/autenticacion/api/autenticacion/semilla',
  validateSeed: '/autenticacion/api/autenticacion/validarsemilla',
  recepcion: '/recepcion/api/facturaselectronicas',
  estado: '/consultaresultado/api/consultas/estado',
  /** "Consulta TrackIds": every submission of one eNCF, `?rncemisor=…&encf=…`. */
  trackIds: '/consultatrackids/api/trackids/consulta',
  /** Below the RFCE host's base, not the e-CF one. */
  rfce: '/recepcionfc/api/recepcion/ecf',
  /**
   * "Consulta RFCE", also on the RFCE host: DGII's verdict on a summary,
   * `?RNC_Emisor=…&ENCF=…&Cod_Seguridad_eCF=…` (the e-CF's security code).
   */
  rfceStatus: '/consultarfce/api/Consultas/Consulta',
  /** "Anulación rangos": a signed ANECF, uploaded like an e-CF; DGII decides at once. */
  anulacion: '/anulacionrangos/api/operaciones/anularrango',
  /** "Consulta Directorio", TesteCF and CerteCF: the listing, `?rnc=…` to narrow it to one RNC. */
  directoryListing: '/consultadirectorio/api/consultas/listado',
  /** "Consulta Directorio" for one RNC, `?rnc=…` (the form eCF answers). */
  directoryByRnc: '/consultadirectorio/api/consultas/obtenerdirectorioporrnc',
  /**
   * "Consulta Estado": an e-CF's validity by its data rather than a trackId,
   * `?rncEmisor=…&ncfElectronico=…&rncComprador=…&codigoSeguridad=…`.
   */
  consultaEstado: '/consultaestado/api/consultas/estado',
  /** DGII's copy of a buyer's commercial approval (ACECF), uploaded as multipart `xml`. */
  aprobacionComercial: '/aprobacioncomercial/api/aprobacioncomercial',
  /** The timbre (QR) page: the e-CF as DGII holds it, public, no token. */
  timbre: '/consultatimbre',
  /** The timbre page of a type 32 sent as RFCE, on the RFCE host. */
  timbreFc: '/consultatimbrefc',
} as const;

export type DgiiService = keyof typeof DGII_PATHS;

/** Services below the RFCE host's base; every other one is below the e-CF base. */
export const FC_SERVICES = ['rfce', 'rfceStatus', 'timbreFc'] as const satisfies readonly DgiiService[];
export type FcService = (typeof FC_SERVICES)[number];
export type EcfService = Exclude<DgiiService, FcService>;

/** Multipart field that carries the XML file in every upload. */
export const XML_FIELD = 'xml';

/** `codigo` of a status answer and the text DGII sends with it in `estado`. */
export const ESTADO_CODES = {
  0: 'No encontrado',
  1: 'Aceptado',
  2: 'Rechazado',
  3: 'En Proceso',
  4: 'Aceptado Condicional',
} as const;

export type EstadoCode = keyof typeof ESTADO_CODES;

export function isEstadoCode(value: number): value is EstadoCode {
  return Object.hasOwn(ESTADO_CODES, value);
}

/**
 * The name an ANECF is uploaded under. DGII fixes {RNC}{eNCF}.xml for documents but publishes
 * no rule for annulments; RNC, "ANECF" and the first number annulled names it uniquely.
 */
export function annulmentFileName(rncEmisor: string, firstEncf: string): string {
  return `${rncEmisor}ANECF${firstEncf}.xml`;
}

/**
 * The file name of a commercial approval (ACECF) or receipt (ARECF): the buyer's RNC followed by
 * the eNCF (Descripción Técnica v1.6, 8.4 "File Naming Conventions").
 */
export function approvalFileName(rncComprador: string, encf: string): string {
  return `${rncComprador}${encf}.xml`;
}

/** The file name DGII expects for an uploaded document: RNCEmisor followed by the eNCF. */
export function documentFileName(rncEmisor: string, encf: string): string {
  return `${rncEmisor}${encf}.xml`;
}

/**
 * "Estatus Servicios" (Descripción Técnica v1.6): paths below the status host's base
 * (DGII_STATUS_BASE_URL), not below an environment's. obtenerEstatus and
 * obtenerVentanasMantenimiento take `Authorization: Apikey …`; verificarEstado takes `?ambiente=N`.
 */
export const DGII_STATUS_PATHS = {
  obtenerEstatus: '/api/estatusservicios/obtenerestatus',
  obtenerVentanasMantenimiento: '/api/estatusservicios/obtenerventanasmantenimiento',
  verificarEstado: '/api/estatusservicios/verificarestado',
} as const;

export type StatusService = keyof typeof DGII_STATUS_PATHS;

/**
 * How "Estatus Servicios" names each environment: `ambiente` in its answers and the number
 * verificarEstado takes (1 PreCertificacion = TesteCF, 2 Produccion = eCF, 3 Certificacion = CerteCF).
 */
export const STATUS_AMBIENTES = {
  TesteCF: { name: 'PreCertificacion', code: 1 },
  eCF: { name: 'Produccion', code: 2 },
  CerteCF: { name: 'Certificacion', code: 3 },
} as const;

/** The services obtenerEstatus lists, as DGII spells them. */
export const STATUS_SERVICE_NAMES = [
  'Autenticación', 'Recepción', 'Consulta Resultado', 'Consulta Estado', 'Consulta Directorio',
  'Consulta TrackIds', 'Aprobación Comercial', 'Anulación Rangos', 'Recepción FC',
] as const;
