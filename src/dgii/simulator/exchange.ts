import { ESTADO_CODES } from '../protocol/paths.ts';
import type { DirectoryEntry } from '../protocol/exchange-answers.ts';
import { approvalFileName } from '../protocol/paths.ts';
import { taxIdProblem } from '../../ecf/tax-id.ts';
import { timbreMismatch } from './fiscal-checks.ts';
import type { Handler, HandlerContext } from './context.ts';
import { bearerToken, errorReply, jsonReply, type Reply, UNAUTHORIZED, uploadedXml } from './http.ts';
import { parseXml, textAt, verifyParsed, type XmlDocument } from '../../xml/index.ts';
import { describeCertificate } from '../../certificates/check.ts';
import { validateAcecfXml } from '../../ecf/xml/validate.ts';
import { APPROVAL_NOT_REQUIRED, takesApproval, tipoOfEncf } from '../../ecf/exchange-rules.ts';

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
    // DGII's registry knows no number whose check digit is wrong (src/ecf/tax-id.ts).
    if (rnc !== null && taxIdProblem(rnc) !== undefined) return errorReply(400, `El RNC o cédula ${rnc} no es válido: su dígito verificador no corresponde`);
    ctx.state.counters.directoryQueries++;
    // DGII's shape: an empty urlOpcional for a receiver without the optional authentication.
    const entries = (await ctx.directory(ctx.environment, rnc)).map((e: DirectoryEntry) => ({ ...e, urlOpcional: e.urlOpcional ?? '' }));
    if (!byRnc) return jsonReply(200, entries);
    const entry = entries[0];
    return entry === undefined ? errorReply(404, `El RNC ${rnc ?? ''} no figura en el directorio de receptores electrónicos`) : jsonReply(200, entry);
  };
}

/**
 * What DGII shows of the e-CF with this RNCEmisor, eNCF and security code: an accepted
 * submission's outcome (a later upload refused as a reused eNCF does not hide it), else the
 * latest one's, else the verdict on its summary, else 0 (No encontrado). The code is that of the
 * e-CF's signature: a wrong one finds nothing, so the eNCF alone reveals nothing. The timbre
 * page of a link without a code (`code` null) goes by the eNCF alone.
 */
function codigoOf(ctx: HandlerContext, rncEmisor: string, encf: string, code: string | null): number {
  const matches = (c: string | null): boolean => code === null || c === code;
  const tracks = ctx.env.tracksOf(rncEmisor, encf).filter((t) => matches(t.securityCode));
  const accepted = tracks.find((t) => ctx.now >= t.readyAt && t.codigo !== 2);
  if (accepted !== undefined) return accepted.codigo;
  const latest = tracks.at(-1);
  if (latest !== undefined) return ctx.now >= latest.readyAt ? latest.codigo : 3;
  const summary = ctx.env.summaryOf(rncEmisor, encf);
  return summary !== undefined && matches(summary.securityCode) ? summary.codigo : 0;
}

/** Consulta Estado: any taxpayer may ask, given the e-CF's data and the security code only its signature has. */
export const consultaEstadoHandler: Handler = (ctx) => {
  if (holder(ctx) === null) return UNAUTHORIZED;
  const rncEmisor = param(ctx.url, 'rncEmisor');
  const encf = param(ctx.url, 'ncfElectronico');
  const codigoSeguridad = param(ctx.url, 'codigoSeguridad');
  if (rncEmisor === null || encf === null || codigoSeguridad === null) return errorReply(400, 'Los parámetros rncEmisor, ncfElectronico y codigoSeguridad son requeridos');
  ctx.state.counters.ecfStatusQueries++;
  const codigo = codigoOf(ctx, rncEmisor, encf, codigoSeguridad);
  return jsonReply(200, {
    codigo,
    estado: ESTADO_CODES[codigo as keyof typeof ESTADO_CODES],
    rncEmisor,
    ncfElectronico: encf,
    rncComprador: param(ctx.url, 'rncComprador'),
    codigoSeguridad,
  });
};

/**
 * DGII takes a buyer's ACECF from the buyer (the token's holder is its RNCComprador), as it does
 * in certification step 3: the document must satisfy acecf.xsd and carry a valid signature by a
 * certificate of that same buyer.
 */
export const aprobacionHandler: Handler = (ctx) => {
  const holderId = holder(ctx);
  if (holderId === null) return UNAUTHORIZED;
  const upload = uploadedXml(ctx.req, ctx.body);
  if ('reply' in upload) return upload.reply;
  let doc: XmlDocument;
  try {
    doc = parseXml(upload.file.data);
  } catch {
    return errorReply(400, 'El archivo no es un XML válido');
  }
  const root = doc.root;
  if (root.localName !== 'ACECF') return errorReply(400, 'El documento no es una aprobación comercial (ACECF)');
  const estado = textAt(root, ['DetalleAprobacionComercial', 'Estado'])?.trim();
  const comprador = textAt(root, ['DetalleAprobacionComercial', 'RNCComprador'])?.trim();
  if (comprador !== holderId) return errorReply(400, `El RNCComprador ${comprador ?? ''} no corresponde al RNC ${holderId} del token`);
  const invalid = validateAcecfXml(doc);
  if (invalid.length > 0) return errorReply(400, `La estructura del archivo XML no es válido: ${invalid.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  const verified = verifyParsed(doc);
  if (!verified.valid) return errorReply(400, `La firma del XML no es válida: ${verified.reason}`);
  const signer = describeCertificate(verified.certificate).holderId;
  if (signer !== holderId) return errorReply(400, `La aprobación comercial está firmada por ${signer ?? 'un certificado sin titular'}, no por el comprador ${holderId}`);
  const encf = textAt(root, ['DetalleAprobacionComercial', 'eNCF'])?.trim();
  const emisor = textAt(root, ['DetalleAprobacionComercial', 'RNCEmisor'])?.trim();
  const expected = approvalFileName(comprador ?? '', encf ?? '');
  if ((upload.file.filename ?? '').toLowerCase() !== expected.toLowerCase()) return errorReply(400, `El archivo debe llamarse ${expected}`);
  const tipo = tipoOfEncf(encf ?? '');
  if (tipo !== null && !takesApproval(tipo)) return errorReply(400, APPROVAL_NOT_REQUIRED);
  // DGII takes approvals only of e-CF it holds, and not of rejected ones. In CerteCF the
  // approvals of DGII's test set are about e-CF that DGII's own test issuers made, which no
  // taxpayer sent through this simulator: there it judges only those it does hold.
  const codigo = codigoOf(ctx, emisor ?? '', encf ?? '', null);
  if (codigo === 0 && ctx.environment !== 'CerteCF') return errorReply(400, 'Factura no encontrada para esta Aprobación comercial');
  if (codigo === 2) return errorReply(400, 'No se encuentra un e-CF válido para esta aprobación comercial');
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
  const codigo = codigoOf(ctx, rncEmisor, encf, param(ctx.url, 'CodigoSeguridad'));
  // The e-CF's own amount and dates, on the full e-CF's page (a summary's page carries no dates).
  const mismatch = ctx.url.pathname.toLowerCase().endsWith('/consultatimbre')
    ? timbreMismatch(ctx.state, ctx.environment, rncEmisor, encf, { fechaEmision: param(ctx.url, 'FechaEmision'), montoTotal: param(ctx.url, 'MontoTotal'), fechaFirma: param(ctx.url, 'FechaFirma') })
    : null;
  if (mismatch !== null) return timbrePage('Consulta Timbre', [['RNC Emisor', rncEmisor], ['e-NCF', encf], ['Estado', `Datos no válidos: ${mismatch}`]]);
  return timbrePage('Consulta Timbre', [['RNC Emisor', rncEmisor], ['e-NCF', encf], ['Estado', ESTADO_CODES[codigo as keyof typeof ESTADO_CODES]]]);
};
