import { childElementsNamed, textAt, verifyParsed, type XmlElement } from '../../xml/index.ts';
import { validateAnecfXml } from '../../ecf/xml/validate.ts';
import type { Handler } from './context.ts';
import { bearerToken, errorReply, jsonReply, UNAUTHORIZED, uploadedXml } from './http.ts';
import { parseUpload } from './documents.ts';

// "Anulación rangos": the holder of an RNC annuls numbers it will never use. Checked as DGII
// would: the signature, anecf.xsd, the counts it declares, and that no number was already
// used (accepted) or annulled. The same ranges sent again are accepted again, so a client
// that lost the answer can send once more. The answer is decided at once:
// { rnc, codigo: "1", estado: "Aceptado", mensajes } or codigo "2", estado "Rechazado".

interface Line {
  tipo: number;
  spans: { desde: number; hasta: number }[];
  declared: string;
}

function number(encf: string | undefined, tipo: number): number | null {
  const m = /^E(\d{2})(\d{10})$/.exec(encf?.trim() ?? '');
  return m === null || Number(m[1]) !== tipo ? null : Number(m[2]);
}

/** The lines of an ANECF that passed its schema; a problem names the first inconsistency. */
function readLines(root: XmlElement): { lines: Line[] } | { problem: string } {
  const detalle = childElementsNamed(root, 'DetalleAnulacion')[0];
  const lines: Line[] = [];
  for (const anulacion of detalle === undefined ? [] : childElementsNamed(detalle, 'Anulacion')) {
    const tipo = Number(textAt(anulacion, ['TipoeCF']));
    const tabla = childElementsNamed(anulacion, 'TablaRangoSecuenciasAnuladaseNCF')[0];
    const spans: Line['spans'] = [];
    for (const s of tabla === undefined ? [] : childElementsNamed(tabla, 'Secuencias')) {
      const desde = number(textAt(s, ['SecuenciaeNCFDesde']), tipo);
      const hasta = number(textAt(s, ['SecuenciaeNCFHasta']), tipo);
      if (desde === null || hasta === null) return { problem: `Las secuencias deben ser e-NCF del tipo ${tipo}` };
      if (desde > hasta) return { problem: 'SecuenciaeNCFDesde no puede ser mayor que SecuenciaeNCFHasta' };
      spans.push({ desde, hasta });
    }
    lines.push({ tipo, spans, declared: textAt(anulacion, ['CantidadeNCFAnulados'])?.trim() ?? '' });
  }
  return { lines };
}

export const annulmentHandler: Handler = (ctx) => {
  const token = bearerToken(ctx.req);
  const holderId = token === null ? null : ctx.env.holderOf(token);
  if (holderId === null) return UNAUTHORIZED;
  const upload = uploadedXml(ctx.req, ctx.body);
  if ('reply' in upload) return upload.reply;
  const parsed = parseUpload(upload.file.data);
  if ('problem' in parsed) return errorReply(400, `El archivo no es un XML válido: ${parsed.problem}`);
  ctx.state.counters.annulmentsReceived++;
  const reject = (mensaje: string) => jsonReply(200, { rnc: holderId, codigo: '2', estado: 'Rechazado', mensajes: [mensaje] });

  const verified = verifyParsed(parsed.doc);
  if (!verified.valid) return reject(`La firma digital del documento no es válida: ${verified.reason}`);
  const errors = validateAnecfXml(verified.document);
  if (errors.length > 0) return reject(`El documento no cumple con el esquema XSD: ${errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  const root = verified.document.root;
  const rnc = textAt(root, ['Encabezado', 'RncEmisor'])?.trim() ?? '';
  if (rnc !== holderId) return reject(`El RncEmisor ${rnc} no corresponde al RNC ${holderId} del token`);
  const read = readLines(root);
  if ('problem' in read) return reject(read.problem);
  let total = 0;
  for (const line of read.lines) {
    const count = line.spans.reduce((sum, s) => sum + (s.hasta - s.desde + 1), 0);
    if (String(count) !== line.declared) return reject(`CantidadeNCFAnulados del tipo ${line.tipo} debe ser ${count}`);
    total += count;
  }
  if (String(total) !== textAt(root, ['Encabezado', 'CantidadeNCFAnulados'])?.trim()) return reject(`CantidadeNCFAnulados del encabezado debe ser ${total}`);

  for (const line of read.lines) {
    for (const span of line.spans) {
      if (ctx.env.annulledExactly(rnc, line.tipo, span)) continue;
      const used = ctx.env.acceptedIn(rnc, line.tipo, span);
      if (used !== null) return reject(`La secuencia ${used} ya fue utilizada y no puede anularse`);
      const annulled = ctx.env.annulledIn(rnc, line.tipo, span);
      if (annulled !== null) return reject(`La secuencia ${annulled} ya fue anulada`);
    }
  }
  for (const line of read.lines) for (const span of line.spans) ctx.env.addAnnulment(rnc, line.tipo, span);
  ctx.log.debug('ANECF received', { environment: ctx.environment, rnc, total });
  return jsonReply(200, { rnc, codigo: '1', estado: 'Aceptado', mensajes: [] });
};
