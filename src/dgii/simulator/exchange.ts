import { ESTADO_CODES } from '../protocol/paths.ts';
import type { DirectoryEntry } from '../protocol/exchange-answers.ts';
import type { Handler, HandlerContext } from './context.ts';
import { bearerToken, errorReply, jsonReply, type Reply, UNAUTHORIZED, uploadedXml } from './http.ts';
import { parseXml, textAt } from '../../xml/index.ts';

// The directory of electronic receivers, "Consulta Estado", DGII's copy of commercial approvals
// and the public timbre page. The directory comes from the simulator's options (the in-process
// one lists the service's own tenants; the standalone one, entries given by flag or file).

function holder(ctx: HandlerContext): string | null {
  const token = bearerToken(ctx.req);
  return token === null ? null : ctx.env.holderOf(token);
}

function param(url: URL, name: string): string | null {
  let value: string | null = null;
  for (const [key, v] of url.searchParams) if (key.toLowerCase() === name.toLowerCase()) value = v.trim();
  return value === '' ? null : value;
}

/** Listing (optionally `?rnc=`) and by-RNC answer alike here: a list; DGII's eCF by-RNC form answers one object. */
export function directoryHandler(byRnc: boolean): Handler {
  return async (ctx) => {
    if (holder(ctx) === null) return UNAUTHORIZED;
    const rnc = param(ctx.url, 'rnc');
    if (byRnc && rnc === null) return errorReply(400, 'El parámetro rnc es requerido');
    if (rnc !== null && !/^(\d{9}|\d{11})$/.test(rnc)) return errorReply(400, 'El parámetro rnc debe tener 9 u 11 dígitos');
    ctx.state.counters.directoryQueries++;
    const entries: DirectoryEntry[] = await ctx.directory(ctx.environment, rnc);
    if (!byRnc) return jsonReply(200, entries);
    const entry = entries[0];
    return entry === undefined ? errorReply(404, `El RNC ${rnc ?? ''} no figura en el directorio de receptores electrónicos`) : jsonReply(200, entry);
  };
}

/** The e-CF's latest submission's outcome, or 0 (No encontrado). */
function codigoOf(ctx: HandlerContext, rncEmisor: string, encf: string): number {
  const track = ctx.env.tracksOf(rncEmisor, encf).at(-1);
  if (track !== undefined) return ctx.now >= track.readyAt ? track.codigo : 3;
  return ctx.env.summaryOf(rncEmisor, encf)?.codigo ?? 0;
}

export const consultaEstadoHandler: Handler = (ctx) => {
  if (holder(ctx) === null) return UNAUTHORIZED;
  const rncEmisor = param(ctx.url, 'rncEmisor');
  const encf = param(ctx.url, 'ncfElectronico');
  if (rncEmisor === null || encf === null) return errorReply(400, 'Los parámetros rncEmisor y ncfElectronico son requeridos');
  ctx.state.counters.statusQueries++;
  const codigo = codigoOf(ctx, rncEmisor, encf);
  return jsonReply(200, {
    codigo,
    estado: ESTADO_CODES[codigo as keyof typeof ESTADO_CODES],
    rncEmisor,
    ncfElectronico: encf,
    rncComprador: param(ctx.url, 'rncComprador'),
    codigoSeguridad: param(ctx.url, 'codigoSeguridad'),
  });
};

/** DGII takes a buyer's ACECF from the buyer (the token's holder is its RNCComprador). */
export const aprobacionHandler: Handler = (ctx) => {
  const holderId = holder(ctx);
  if (holderId === null) return UNAUTHORIZED;
  const upload = uploadedXml(ctx.req, ctx.body);
  if ('reply' in upload) return upload.reply;
  let estado: string | undefined;
  let comprador: string | undefined;
  try {
    const root = parseXml(upload.file.data).root;
    if (root.localName !== 'ACECF') return errorReply(400, 'El documento no es una aprobación comercial (ACECF)');
    estado = textAt(root, ['DetalleAprobacionComercial', 'Estado'])?.trim();
    comprador = textAt(root, ['DetalleAprobacionComercial', 'RNCComprador'])?.trim();
  } catch {
    return errorReply(400, 'El archivo no es un XML válido');
  }
  if (comprador !== holderId) return errorReply(400, `El RNCComprador ${comprador ?? ''} no corresponde al RNC ${holderId} del token`);
  ctx.state.counters.approvalsReceived++;
  const approved = estado === '1';
  return jsonReply(200, { codigo: approved ? '01' : '02', estado: approved ? 'Aprobación Comercial Aprobada.' : 'Aprobación Comercial Rechazada.', mensaje: [] });
};

function timbrePage(title: string, rows: [string, string][]): Reply {
  const cells = rows.map(([k, v]) => `<tr><th>${escape(k)}</th><td>${escape(v)}</td></tr>`).join('');
  return { status: 200, html: `<!DOCTYPE html><html><head><title>${escape(title)}</title></head><body><table>${cells}</table></body></html>` };
}

function escape(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);
}

/** The public page a timbre (QR) leads to: the e-CF's status, no token. */
export const timbreHandler: Handler = (ctx) => {
  const rncEmisor = param(ctx.url, 'RncEmisor');
  const encf = param(ctx.url, 'ENCF');
  if (rncEmisor === null || encf === null) return errorReply(400, 'Los parámetros RncEmisor y ENCF son requeridos');
  const codigo = codigoOf(ctx, rncEmisor, encf);
  return timbrePage('Consulta Timbre', [['RNC Emisor', rncEmisor], ['e-NCF', encf], ['Estado', ESTADO_CODES[codigo as keyof typeof ESTADO_CODES]]]);
};
