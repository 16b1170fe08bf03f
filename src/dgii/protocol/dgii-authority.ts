import type { FinalEstado } from '../../ecf/states.ts';
import type { AnnulmentSubmission, AnnulmentVerdict, EcfStatusQuery, PriorSubmission, StatusQuery, StatusResult, Submission, SubmissionsQuery, SubmitResult, SummaryQuery, TaxAuthority, Verdict } from '../authority.ts';
import { PermanentAuthorityError, TransientAuthorityError } from '../authority.ts';
import { parseDgiiDateTime } from '../../ecf/xml/dgii-time.ts';
import type { RfceAnswer } from './answers.ts';
import type { ConsultaEstadoAnswer } from './exchange-answers.ts';
import type { DgiiClient } from './client.ts';
import { annulmentFileName, documentFileName, type EstadoCode, isEstadoCode } from './paths.ts';

// The TaxAuthority port over DGII's HTTP protocol. Type 32 documents under the RFCE
// threshold travel as their summary and get a verdict at once; everything else is queued
// by DGII and followed by trackId.

const OUTCOMES: Readonly<Record<EstadoCode, { kind: 'not-found' } | { kind: 'pending' } | { kind: 'final'; estado: FinalEstado }>> = {
  0: { kind: 'not-found' },
  1: { kind: 'final', estado: 'aceptado' },
  2: { kind: 'final', estado: 'rechazado' },
  3: { kind: 'pending' },
  4: { kind: 'final', estado: 'aceptado_condicional' },
};

// The specification gives acceptance code 0; DGII often accepts with an empty `mensajes`.
const ACCEPTED_CODE = '0';

/** Every message's text, or DGII's word for the status when it sent none. */
function messageOf(answer: RfceAnswer): string {
  const texts = answer.mensajes.map((m) => m.valor.trim()).filter((v) => v !== '');
  return texts.length > 0 ? texts.join('; ') : answer.estado;
}

/** DGII's verdict with the first message's code and every message's text. */
function verdictOf(estado: FinalEstado, answer: RfceAnswer): Verdict {
  const code = answer.mensajes[0]?.codigo ?? null;
  return { estado, dgiiCode: code ?? (estado === 'aceptado' ? ACCEPTED_CODE : null), dgiiMessage: messageOf(answer), secuenciaUtilizada: answer.secuenciaUtilizada };
}

/** The answer to a status query, as the port says it. */
function statusOf(answer: RfceAnswer): StatusResult {
  const outcome = OUTCOMES[answer.codigo];
  if (outcome.kind === 'not-found') return { kind: 'not-found', dgiiCode: answer.mensajes[0]?.codigo ?? null, dgiiMessage: messageOf(answer) };
  if (outcome.kind === 'pending') return { kind: 'pending', dgiiMessage: messageOf(answer) };
  return { kind: 'final', verdict: verdictOf(outcome.estado, answer) };
}

/**
 * A Consulta Estado answer as the port says it. It names the state and nothing else: DGII's
 * reasons come with the status of a trackId. Its `codigo` is one the reader accepted (0 to 4).
 */
function estadoOf(answer: ConsultaEstadoAnswer): StatusResult {
  const outcome = OUTCOMES[isEstadoCode(answer.codigo) ? answer.codigo : 0];
  if (outcome.kind === 'not-found') return { kind: 'not-found', dgiiCode: null, dgiiMessage: answer.estado };
  if (outcome.kind === 'pending') return { kind: 'pending', dgiiMessage: answer.estado };
  return { kind: 'final', verdict: { estado: outcome.estado, dgiiCode: outcome.estado === 'aceptado' ? ACCEPTED_CODE : null, dgiiMessage: answer.estado } };
}

export class DgiiAuthority implements TaxAuthority {
  private readonly client: DgiiClient;

  constructor(client: DgiiClient) {
    this.client = client;
  }

  async submit(s: Submission, signal: AbortSignal): Promise<SubmitResult> {
    const fileName = documentFileName(s.rncEmisor, s.encf);
    if (s.signedRfceXml !== null) {
      const answer = await this.client.sendRfce(s.tenantId, s.environment, { fileName, xml: s.signedRfceXml }, signal);
      const outcome = OUTCOMES[answer.codigo];
      // The summary service decides synchronously; anything else is an answer we cannot act on yet.
      if (outcome.kind !== 'final') throw new TransientAuthorityError(`DGII answered "${answer.estado}" to the summary of ${s.encf} instead of a verdict`);
      return { kind: 'final', trackId: null, verdict: verdictOf(outcome.estado, answer) };
    }
    const answer = await this.client.sendEcf(s.tenantId, s.environment, { fileName, xml: s.signedXml }, signal);
    return { kind: 'queued', trackId: answer.trackId };
  }

  async annul(a: AnnulmentSubmission, signal: AbortSignal): Promise<AnnulmentVerdict> {
    const answer = await this.client.sendAnnulment(a.tenantId, a.environment, { fileName: annulmentFileName(a.rncEmisor, a.firstEncf), xml: a.signedXml }, signal);
    const word = answer.estado ?? '';
    const message = answer.mensajes.length > 0 ? answer.mensajes.join('; ') : (answer.estado ?? null);
    if (/rechaz/i.test(word)) return { estado: 'rechazado', dgiiCode: answer.codigo, dgiiMessage: message };
    if (/acept|exitos|anulad/i.test(word)) return { estado: 'aceptado', dgiiCode: answer.codigo, dgiiMessage: message };
    throw new PermanentAuthorityError(`DGII answered the annulment with neither Aceptado nor Rechazado (codigo ${answer.codigo ?? 'none'}, estado ${answer.estado ?? 'none'}${message === null ? '' : `: ${message}`})`, answer.codigo);
  }

  async findSubmissions(q: SubmissionsQuery, signal: AbortSignal): Promise<PriorSubmission[]> {
    const entries = await this.client.trackIds(q.tenantId, q.environment, q.rncEmisor, q.encf, signal);
    const found = entries.map((e) => ({ trackId: e.trackId, estado: e.estado, receivedAt: e.fechaRecepcion === null ? null : parseDgiiDateTime(e.fechaRecepcion) }));
    // Oldest first by reception time when every entry has one; otherwise in DGII's order.
    if (found.every((f) => f.receivedAt !== null)) found.sort((a, b) => (a.receivedAt?.getTime() ?? 0) - (b.receivedAt?.getTime() ?? 0));
    return found;
  }

  async status(q: StatusQuery, signal: AbortSignal): Promise<StatusResult> {
    return statusOf(await this.client.trackStatus(q.tenantId, q.environment, q.trackId, signal));
  }

  async summaryStatus(q: SummaryQuery, signal: AbortSignal): Promise<StatusResult> {
    return statusOf(await this.client.rfceStatus(q.tenantId, q.environment, { rncEmisor: q.rncEmisor, encf: q.encf, securityCode: q.securityCode }, signal));
  }

  async ecfStatus(q: EcfStatusQuery, signal: AbortSignal): Promise<StatusResult> {
    return estadoOf(await this.client.ecfStatus(q.tenantId, q.environment, { rncEmisor: q.rncEmisor, encf: q.encf, rncComprador: q.rncComprador, codigoSeguridad: q.securityCode }, signal));
  }
}
