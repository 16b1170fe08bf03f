import type { KeyObject, X509Certificate } from 'node:crypto';
import { type Environment, publishes } from '../../environments.ts';
import { NotASeedError, signSeedXml } from '../../ecf/xml/seed-check.ts';
import { XML_ERROR, XmlError } from '../../xml/index.ts';
import { PermanentAuthorityError, TransientAuthorityError, UnpublishedServiceError } from '../authority.ts';
import {
  errorText,
  type EstadoAnswer,
  readEstadoAnswer,
  readRecepcionAnswer,
  readRfceAnswer,
  readTokenAnswer,
  readTrackIdsAnswer,
  readAnulacionAnswer,
  type AnulacionAnswer,
  type RecepcionAnswer,
  type RfceAnswer,
  type TokenAnswer,
  type TrackIdEntry,
} from './answers.ts';
import { exchange, type HttpAnswer, type HttpRequest } from './http.ts';
import { approvalFailure, failure } from './failures.ts';
import {
  type AprobacionAnswer, type ConsultaEstadoAnswer, type DirectoryEntry, readAprobacionAnswer, readConsultaEstadoAnswer, readDirectoryAnswer, readTimbreEstado,
} from './exchange-answers.ts';
import { encodeMultipartFile } from './multipart.ts';
import { DGII_PATHS, type DgiiService, type EcfService, type FcService, XML_FIELD } from './paths.ts';
import { TokenCache } from './tokens.ts';
import { errorMessage } from '../../errors.ts';

// The DGII HTTP protocol: seed → signed seed → token, then uploads and status queries with
// that token. Transport failures and 5xx are transient; DGII refusing a request is
// permanent, with DGII's own explanation in the message.

export interface DgiiCredentials {
  privateKey: KeyObject;
  certificate: X509Certificate;
  /** Intermediates for KeyInfo after the leaf. */
  chain?: readonly X509Certificate[];
}

export interface DgiiClientOptions {
  /** e-CF services per environment, e.g. https://ecf.dgii.gov.do/testecf. */
  baseUrls: Record<Environment, string>;
  /** RFCE service per environment, e.g. https://fc.dgii.gov.do/testecf. */
  fcBaseUrls: Record<Environment, string>;
  /** Deadline of each HTTP exchange, reading the answer included. */
  timeoutMs: number;
  /** The tenant's signing credential, or null when it has none usable. */
  credentials: (tenantId: number) => Promise<DgiiCredentials | null>;
  /** Largest answer accepted; DGII's are a few hundred bytes. */
  maxAnswerBytes?: number;
  /** Told of every HTTP exchange with DGII: which service and how it ended (ecf_dgii_requests_total). */
  onRequest?: (service: DgiiService | 'other', outcome: DgiiRequestOutcome) => void;
}

/** ok: 2xx; client_error: another status below 500; server_error: 5xx; no_answer: a network error, timeout or oversized answer. */
export type DgiiRequestOutcome = 'ok' | 'client_error' | 'server_error' | 'no_answer';

/** The service a URL of DGII's is for, by the path it ends with. */
function serviceOf(url: string): DgiiService | 'other' {
  let path: string;
  try {
    path = new URL(url).pathname.replace(/\/+$/, '').toLowerCase();
  } catch {
    return 'other';
  }
  for (const [service, suffix] of Object.entries(DGII_PATHS) as [DgiiService, string][]) {
    if (path.endsWith(suffix.toLowerCase())) return service;
  }
  return 'other';
}

export interface XmlUpload {
  /** `{RNCEmisor}{eNCF}.xml` */
  fileName: string;
  xml: string;
}

/** What identifies a summary to "Consulta RFCE". */
export interface RfceQuery {
  rncEmisor: string;
  encf: string;
  /** The security code of the signed e-CF, which the RFCE carries. */
  securityCode: string;
}

/** What identifies an e-CF to "Consulta Estado" when its trackId is lost. */
export interface EstadoQuery {
  rncEmisor: string;
  encf: string;
  rncComprador?: string | null;
  codigoSeguridad?: string | null;
}

export const NO_CERTIFICATE_MESSAGE = 'No valid certificate: upload one with POST /api/certificates';

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The shared token fetch runs for every waiter, so no single caller's signal may cancel it. */
const UNCANCELLED = new AbortController().signal;

export class DgiiClient {
  private readonly tokens = new TokenCache();
  private readonly maxAnswerBytes: number;
  private readonly options: DgiiClientOptions;

  constructor(options: DgiiClientOptions) {
    this.options = options;
    this.maxAnswerBytes = options.maxAnswerBytes ?? 1024 * 1024;
  }

  /** The service's URL; a service DGII does not publish in the environment is refused unsent. */
  private url(environment: Environment, service: EcfService): string {
    const path = DGII_PATHS[service];
    const root = path.split('/')[1] ?? '';
    if (!publishes(environment, root)) throw new UnpublishedServiceError(`DGII does not publish ${root} in ${environment} (Descripción Técnica v1.6, bitácora 28-12-2020)`);
    return trimSlash(this.options.baseUrls[environment]) + path;
  }

  private fcUrl(environment: Environment, service: FcService): string {
    return trimSlash(this.options.fcBaseUrls[environment]) + DGII_PATHS[service];
  }

  private async send(req: HttpRequest, signal: AbortSignal): Promise<HttpAnswer> {
    const report = this.options.onRequest;
    if (report === undefined) return exchange(req, { timeoutMs: this.options.timeoutMs, signal, maxAnswerBytes: this.maxAnswerBytes });
    let answer: HttpAnswer;
    try {
      answer = await exchange(req, { timeoutMs: this.options.timeoutMs, signal, maxAnswerBytes: this.maxAnswerBytes });
    } catch (err) {
      report(serviceOf(req.url), 'no_answer');
      throw err;
    }
    report(serviceOf(req.url), answer.status < 300 && answer.status >= 200 ? 'ok' : answer.status < 500 ? 'client_error' : 'server_error');
    return answer;
  }

  /** The seed XML DGII hands out for authentication. */
  async requestSeed(environment: Environment, signal: AbortSignal): Promise<string> {
    const purpose = 'requesting an authentication seed';
    const answer = await this.send({ method: 'GET', url: this.url(environment, 'seed'), headers: { accept: 'application/xml, text/xml' }, purpose }, signal);
    if (answer.status !== 200) throw failure(answer, purpose);
    return answer.text;
  }

  private async authenticate(credentials: DgiiCredentials, environment: Environment, signal: AbortSignal): Promise<TokenAnswer> {
    const seed = await this.requestSeed(environment, signal);
    let signed: string;
    try {
      signed = signSeedXml(seed, credentials.privateKey, credentials.certificate, credentials.chain);
    } catch (err) {
      // Never signed. DGII's URL is the operator's configuration and a proxy's error page is plausible, so
      // this is retried like any odd answer, and the submission ends in error once its attempts are spent.
      if (err instanceof NotASeedError) throw new TransientAuthorityError(`DGII sent a seed that could not be signed: ${err.message}`);
      if (err instanceof XmlError && err.code === XML_ERROR.SIGNING_KEY) throw new PermanentAuthorityError(`The certificate cannot sign: ${err.message}`);
      throw new TransientAuthorityError(`DGII sent a seed that could not be signed: ${errorMessage(err)}`, { cause: err });
    }
    const purpose = 'validating the signed seed';
    const { body, contentType } = encodeMultipartFile({ field: XML_FIELD, filename: 'semilla.xml', content: signed });
    const answer = await this.send(
      { method: 'POST', url: this.url(environment, 'validateSeed'), headers: { 'content-type': contentType, accept: 'application/json' }, body, purpose },
      signal,
    );
    if (answer.status !== 200) throw failure(answer, purpose);
    const token = readTokenAnswer(answer.json);
    if (token === null) throw new TransientAuthorityError(`DGII's answer while ${purpose} carries no token`);
    return token;
  }

  /**
   * The tenant's token in the environment and its cache key. DGII binds a token to the holder of
   * the certificate that signed the seed, so the key names the certificate: once the tenant
   * replaces it, the next call authenticates with the new one instead of using a token that
   * speaks for the old holder until its hour is up.
   */
  private async session(tenantId: number, environment: Environment, signal: AbortSignal): Promise<{ key: string; token: string }> {
    const credentials = await this.options.credentials(tenantId);
    if (credentials === null) throw new PermanentAuthorityError(NO_CERTIFICATE_MESSAGE);
    const key = `${tenantId}|${environment}|${credentials.certificate.fingerprint256}`;
    return { key, token: await this.tokens.get(key, () => this.authenticate(credentials, environment, UNCANCELLED), signal) };
  }

  /** A token for the tenant's current certificate in the environment, from the cache while it is fresh. */
  async token(tenantId: number, environment: Environment, signal: AbortSignal): Promise<string> {
    return (await this.session(tenantId, environment, signal)).token;
  }

  /** Sends with the tenant's token; on a 401 the token is renewed and the request sent once more. */
  private async authorized(tenantId: number, environment: Environment, signal: AbortSignal, build: (token: string) => HttpRequest): Promise<HttpAnswer> {
    let { key, token } = await this.session(tenantId, environment, signal);
    let answer = await this.send(build(token), signal);
    if (answer.status === 401) {
      this.tokens.discard(key, token);
      ({ key, token } = await this.session(tenantId, environment, signal));
      answer = await this.send(build(token), signal);
      if (answer.status === 401) this.tokens.discard(key, token);
    }
    return answer;
  }

  /** An authorised GET of a query service; anything but a 200 is a failure of `purpose`. */
  private async query(tenantId: number, environment: Environment, url: string, purpose: string, signal: AbortSignal): Promise<HttpAnswer> {
    const answer = await this.authorized(tenantId, environment, signal, (token) => ({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      purpose,
    }));
    if (answer.status !== 200) throw failure(answer, purpose);
    return answer;
  }

  private upload(url: string, purpose: string, file: XmlUpload): (token: string) => HttpRequest {
    const { body, contentType } = encodeMultipartFile({ field: XML_FIELD, filename: file.fileName, content: file.xml });
    return (token) => ({ method: 'POST', url, headers: { authorization: `Bearer ${token}`, 'content-type': contentType, accept: 'application/json' }, body, purpose });
  }

  /** Uploads a signed e-CF; DGII answers with the trackId to follow it by. */
  async sendEcf(tenantId: number, environment: Environment, file: XmlUpload, signal: AbortSignal): Promise<RecepcionAnswer> {
    const purpose = `sending ${file.fileName}`;
    const answer = await this.authorized(tenantId, environment, signal, this.upload(this.url(environment, 'recepcion'), purpose, file));
    if (answer.status !== 200) throw failure(answer, purpose);
    const result = readRecepcionAnswer(answer.json);
    if (result !== null) return result;
    const detail = errorText(answer.json, answer.text);
    if (detail !== null) throw new PermanentAuthorityError(`DGII refused ${file.fileName}: ${detail}`);
    throw new TransientAuthorityError(`DGII's answer while ${purpose} carries no trackId`);
  }

  /** Uploads a signed RFCE (type 32 summary); DGII decides at once. */
  async sendRfce(tenantId: number, environment: Environment, file: XmlUpload, signal: AbortSignal): Promise<RfceAnswer> {
    const purpose = `sending the summary ${file.fileName}`;
    const answer = await this.authorized(tenantId, environment, signal, this.upload(this.fcUrl(environment, 'rfce'), purpose, file));
    if (answer.status !== 200) throw failure(answer, purpose);
    const result = readRfceAnswer(answer.json);
    if (result === null) throw new TransientAuthorityError(`DGII's answer while ${purpose} carries no status`);
    return result;
  }

  /**
   * "Consulta RFCE": DGII's verdict on the summary of an eNCF carrying this security code, with
   * `codigo` 0 (No encontrado) when DGII holds none. How a summary whose answer was lost is
   * found again: sending it twice would be refused as a reused eNCF.
   */
  async rfceStatus(tenantId: number, environment: Environment, q: RfceQuery, signal: AbortSignal): Promise<RfceAnswer> {
    const purpose = `querying the summary of ${q.encf}`;
    const params = new URLSearchParams({ RNC_Emisor: q.rncEmisor, ENCF: q.encf, Cod_Seguridad_eCF: q.securityCode });
    const url = `${this.fcUrl(environment, 'rfceStatus')}?${params.toString()}`;
    const answer = await this.query(tenantId, environment, url, purpose, signal);
    const result = readRfceAnswer(answer.json);
    if (result === null) throw new TransientAuthorityError(`DGII's answer while ${purpose} carries no status`);
    return result;
  }

  /**
   * "Consulta TrackIds": every submission DGII holds of the emisor's eNCF, as DGII lists them
   * (an empty list when it has none). How a submission whose answer was lost is found again.
   */
  async trackIds(tenantId: number, environment: Environment, rncEmisor: string, encf: string, signal: AbortSignal): Promise<TrackIdEntry[]> {
    const purpose = `querying the trackIds of ${encf}`;
    const url = `${this.url(environment, 'trackIds')}?rncemisor=${encodeURIComponent(rncEmisor)}&encf=${encodeURIComponent(encf)}`;
    const answer = await this.query(tenantId, environment, url, purpose, signal);
    const result = readTrackIdsAnswer(answer.json);
    if ('problem' in result) throw new TransientAuthorityError(`DGII's answer while ${purpose} is not a list of submissions: ${result.problem}`);
    return result.entries;
  }

  /**
   * Uploads a signed ANECF to "Anulación rangos"; DGII answers at once. An answer that is not
   * JSON of the documented shape is transient (retried); DGII refusing the upload is permanent.
   */
  async sendAnnulment(tenantId: number, environment: Environment, file: XmlUpload, signal: AbortSignal): Promise<AnulacionAnswer> {
    const purpose = `sending the annulment ${file.fileName}`;
    const answer = await this.authorized(tenantId, environment, signal, this.upload(this.url(environment, 'anulacion'), purpose, file));
    if (answer.status !== 200) throw failure(answer, purpose);
    const result = readAnulacionAnswer(answer.json);
    if (result === null) throw new TransientAuthorityError(`DGII's answer while ${purpose} is not JSON with a codigo or estado`);
    return result;
  }

  /** The processing status of an uploaded e-CF. */
  async trackStatus(tenantId: number, environment: Environment, trackId: string, signal: AbortSignal): Promise<EstadoAnswer> {
    const purpose = `querying trackId ${trackId}`;
    const url = `${this.url(environment, 'estado')}?trackid=${encodeURIComponent(trackId)}`;
    const answer = await this.query(tenantId, environment, url, purpose, signal);
    const result = readEstadoAnswer(answer.json);
    if (result === null) throw new TransientAuthorityError(`DGII's answer while ${purpose} carries no status`);
    return result;
  }

  /**
   * "Consulta Directorio": the receiver URLs DGII publishes, for one RNC or (rnc null, TesteCF
   * and CerteCF) the whole listing. eCF answers one RNC at obtenerdirectorioporrnc.
   */
  async directory(tenantId: number, environment: Environment, rnc: string | null, signal: AbortSignal): Promise<DirectoryEntry[]> {
    const purpose = rnc === null ? 'reading the directory' : `looking up ${rnc} in the directory`;
    const service = environment === 'eCF' && rnc !== null ? 'directoryByRnc' : 'directoryListing';
    const url = `${this.url(environment, service)}${rnc === null ? '' : `?rnc=${encodeURIComponent(rnc)}`}`;
    const answer = await this.query(tenantId, environment, url, purpose, signal);
    const result = readDirectoryAnswer(answer.json ?? (answer.text.trim() === '' ? null : undefined));
    if ('problem' in result) throw new TransientAuthorityError(`DGII's answer while ${purpose} is not a directory: ${result.problem}`);
    return result.entries;
  }

  /** "Consulta Estado": an e-CF's status by its data, for when its trackId is lost. */
  async ecfStatus(tenantId: number, environment: Environment, q: EstadoQuery, signal: AbortSignal): Promise<ConsultaEstadoAnswer> {
    const purpose = `querying the status of ${q.encf}`;
    const params = new URLSearchParams({ rncEmisor: q.rncEmisor, ncfElectronico: q.encf });
    if (q.rncComprador) params.set('rncComprador', q.rncComprador);
    if (q.codigoSeguridad) params.set('codigoSeguridad', q.codigoSeguridad);
    const answer = await this.query(tenantId, environment, `${this.url(environment, 'consultaEstado')}?${params.toString()}`, purpose, signal);
    const result = readConsultaEstadoAnswer(answer.json);
    if (result === null) throw new TransientAuthorityError(`DGII's answer while ${purpose} carries no status`);
    return result;
  }

  /** Uploads a buyer's signed commercial approval (ACECF) to DGII. */
  async sendApproval(tenantId: number, environment: Environment, file: XmlUpload, signal: AbortSignal): Promise<AprobacionAnswer> {
    const purpose = `sending the commercial approval ${file.fileName}`;
    const answer = await this.authorized(tenantId, environment, signal, this.upload(this.url(environment, 'aprobacionComercial'), purpose, file));
    if (answer.status !== 200) throw approvalFailure(answer, purpose);
    return readAprobacionAnswer(answer.json) ?? { codigo: null, estado: null, mensajes: [] };
  }

  /**
   * The public timbre page for the query of a document's timbre URL (its `?…` part), and the
   * status it shows in words (null when none of DGII's words is on it). No token.
   */
  async timbre(environment: Environment, rfce: boolean, search: string, signal: AbortSignal): Promise<{ estado: string | null; page: string }> {
    const purpose = 'querying the timbre';
    const base = rfce ? this.fcUrl(environment, 'timbreFc') : this.url(environment, 'timbre');
    const answer = await this.send({ method: 'GET', url: `${base}${search.startsWith('?') ? search : `?${search}`}`, headers: { accept: 'text/html, application/json' }, purpose }, signal);
    if (answer.status !== 200) throw failure(answer, purpose);
    return { estado: readTimbreEstado(answer.text), page: answer.text };
  }
}
