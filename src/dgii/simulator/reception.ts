import { randomUUID } from 'node:crypto';
import { documentFileName, ESTADO_CODES } from '../protocol/paths.ts';
import type { Handler, HandlerContext } from './context.ts';
import { type DocumentKind, judge, parseUpload, type ReceivedDocument } from './documents.ts';
import { bearerToken, errorReply, jsonReply, type Reply, UNAUTHORIZED, uploadedXml } from './http.ts';
import { formatFechaHoraFirma } from '../../ecf/xml/dgii-time.ts';

// Recepción (queued, followed by trackId), consulta de resultado, and the RFCE service that
// decides at once. Every one requires a token; a document is received only from the holder
// of the RNC it is issued by.

function refusal(status: number, error: string, mensaje: string): Reply {
  return jsonReply(status, { trackId: null, error, mensaje });
}

/** Checks shared by both upload services; the verdict, or the reply that refuses the upload. */
function receive(ctx: HandlerContext, kind: DocumentKind): { holderId: string; received: ReceivedDocument } | { reply: Reply } {
  const token = bearerToken(ctx.req);
  const holderId = token === null ? null : ctx.env.holderOf(token);
  if (holderId === null) return { reply: UNAUTHORIZED };
  const upload = uploadedXml(ctx.req, ctx.body);
  if ('reply' in upload) return upload;
  const parsed = parseUpload(upload.file.data);
  if ('problem' in parsed) return { reply: refusal(400, 'XML inválido', `El archivo no es un XML válido: ${parsed.problem}`) };

  const { rncEmisor, encf } = parsed;
  if (rncEmisor !== null && rncEmisor !== holderId) {
    return { reply: refusal(400, 'RNC no autorizado', `El RNCEmisor ${rncEmisor} del documento no corresponde al RNC ${holderId} del token`) };
  }
  if (rncEmisor !== null && encf !== null) {
    const expected = documentFileName(rncEmisor, encf);
    if ((upload.file.filename ?? '').toLowerCase() !== expected.toLowerCase()) {
      return { reply: refusal(400, 'Nombre de archivo inválido', `El archivo debe llamarse ${expected}`) };
    }
  }
  return { holderId, received: judge(kind, parsed.doc, ctx.environment, ctx.state, ctx.now) };
}

export const recepcionHandler: Handler = (ctx) => {
  const outcome = receive(ctx, 'ecf');
  if ('reply' in outcome) return outcome.reply;
  const { holderId, received } = outcome;
  const trackId = randomUUID();
  ctx.env.addTrack({
    trackId,
    holderId,
    rncEmisor: received.rncEmisor ?? holderId,
    encf: received.encf ?? '',
    receivedAt: ctx.now,
    readyAt: ctx.now + ctx.processingMs,
    codigo: received.codigo,
    mensajes: received.mensajes,
    secuenciaUtilizada: received.encf !== null && ctx.env.isAccepted(received.rncEmisor ?? holderId, received.encf),
    securityCode: received.securityCode,
  });
  ctx.state.counters.documentsReceived++;
  ctx.log.debug('e-CF received', { environment: ctx.environment, trackId, encf: received.encf, codigo: received.codigo });
  return jsonReply(200, { trackId, error: null, mensaje: null });
};

export const rfceHandler: Handler = (ctx) => {
  const outcome = receive(ctx, 'rfce');
  if ('reply' in outcome) return outcome.reply;
  const { holderId, received } = outcome;
  ctx.state.counters.summariesReceived++;
  if (received.rncEmisor !== null && received.encf !== null && received.securityCode !== null) {
    ctx.env.addSummary(received.rncEmisor, received.encf, { holderId, securityCode: received.securityCode, codigo: received.codigo, mensajes: received.mensajes });
  }
  ctx.log.debug('RFCE received', { environment: ctx.environment, encf: received.encf, codigo: received.codigo });
  return jsonReply(200, {
    codigo: received.codigo,
    estado: ESTADO_CODES[received.codigo],
    mensajes: received.mensajes,
    encf: received.encf,
    secuenciaUtilizada: received.encf !== null && ctx.env.isAccepted(received.rncEmisor ?? holderId, received.encf),
  });
};

export const estadoHandler: Handler = (ctx) => {
  const token = bearerToken(ctx.req);
  const holderId = token === null ? null : ctx.env.holderOf(token);
  if (holderId === null) return UNAUTHORIZED;
  let trackId: string | null = null;
  for (const [name, value] of ctx.url.searchParams) if (name.toLowerCase() === 'trackid') trackId = value.trim();
  if (trackId === null || trackId === '') return errorReply(400, 'El parámetro trackId es requerido');
  ctx.state.counters.statusQueries++;

  const track = ctx.env.track(trackId);
  // Another holder's trackId is answered like an unknown one: it reveals nothing.
  if (track === undefined || track.holderId !== holderId) {
    return jsonReply(200, {
      trackId,
      codigo: 0,
      estado: ESTADO_CODES[0],
      rnc: null,
      encf: null,
      secuenciaUtilizada: false,
      fechaRecepcion: null,
      mensajes: [{ valor: 'No se encontró el trackId', codigo: 0 }],
    });
  }
  const ready = ctx.now >= track.readyAt;
  const codigo = ready ? track.codigo : 3;
  return jsonReply(200, {
    trackId,
    codigo,
    estado: ESTADO_CODES[codigo],
    rnc: track.rncEmisor,
    encf: track.encf,
    secuenciaUtilizada: ready && track.secuenciaUtilizada,
    fechaRecepcion: formatFechaHoraFirma(new Date(track.receivedAt)),
    mensajes: ready ? track.mensajes : [],
  });
};

/** The query parameter `name`, matched without regard to capitals; null when absent or blank. */
function queryParam(url: URL, name: string): string | null {
  let value: string | null = null;
  for (const [key, v] of url.searchParams) if (key.toLowerCase() === name) value = v.trim();
  return value === '' ? null : value;
}

/**
 * Consulta RFCE: the verdict on the summary of an eNCF, found by RNCEmisor, eNCF and the
 * security code it carries. Another holder's summary, or a wrong code, is "No encontrado".
 */
export const rfceStatusHandler: Handler = (ctx) => {
  const token = bearerToken(ctx.req);
  const holderId = token === null ? null : ctx.env.holderOf(token);
  if (holderId === null) return UNAUTHORIZED;
  const rncEmisor = queryParam(ctx.url, 'rnc_emisor');
  const encf = queryParam(ctx.url, 'encf');
  const securityCode = queryParam(ctx.url, 'cod_seguridad_ecf');
  if (rncEmisor === null || encf === null || securityCode === null) {
    return errorReply(400, 'Los parámetros RNC_Emisor, ENCF y Cod_Seguridad_eCF son requeridos');
  }
  ctx.state.counters.summaryQueries++;
  const summary = ctx.env.summaryOf(rncEmisor, encf);
  const found = summary !== undefined && summary.holderId === holderId && summary.securityCode === securityCode ? summary : null;
  const codigo = found?.codigo ?? 0;
  // DGII documents `codigo` as a string in this answer.
  return jsonReply(200, {
    rnc: rncEmisor,
    encf,
    secuenciaUtilizada: found !== null,
    codigo: String(codigo),
    estado: ESTADO_CODES[codigo],
    mensajes: found?.mensajes ?? [{ valor: 'No se encontró un resumen de factura de consumo con esos datos', codigo: 0 }],
  });
};

/**
 * Consulta TrackIds: every document received with this RNCEmisor and eNCF, oldest first, each
 * with its current estado. Only the token holder's own documents are listed.
 */
export const trackIdsHandler: Handler = (ctx) => {
  const token = bearerToken(ctx.req);
  const holderId = token === null ? null : ctx.env.holderOf(token);
  if (holderId === null) return UNAUTHORIZED;
  const rncEmisor = queryParam(ctx.url, 'rncemisor');
  const encf = queryParam(ctx.url, 'encf');
  if (rncEmisor === null || encf === null) return errorReply(400, 'Los parámetros rncEmisor y encf son requeridos');
  ctx.state.counters.trackIdQueries++;
  const tracks = ctx.env.tracksOf(rncEmisor, encf).filter((t) => t.holderId === holderId);
  return jsonReply(
    200,
    tracks.map((t) => {
      const codigo = ctx.now >= t.readyAt ? t.codigo : 3;
      return { trackId: t.trackId, estado: ESTADO_CODES[codigo], fechaRecepcion: formatFechaHoraFirma(new Date(t.receivedAt)) };
    }),
  );
};
