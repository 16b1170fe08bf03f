import { hashOf, PATHS, poll, type PageContext } from './context.ts';
import { busy, dgiiDate, dgiiDateTime, errorBox, facts, field, h, loading, money, orDash, select, table, time } from './dom.ts';
import { APROBACIONES, CORREO_ESTADOS, ESTADOS, PRINT_FORMATS, RECEPTOR_ESTADOS } from './labels.ts';
import { estadoBadge, lastListHash, tipoLabel } from './page-documents.ts';
import type { DocumentDetail } from './types.ts';
import { rejectionReasons } from './dgii-reasons.ts';
import { spanishMessage } from './service-messages.ts';
import { imageData, saveAs } from './download.ts';
import { buyerSection, linesSection, totalsSection } from './ecf-view.ts';

// One document: what DGII answered (in plain words when it rejected it), the buyer, lines,
// totals and ITBIS by rate, its history, and (once signed) its security code, the timbre's
// QR code and verification link, and the signed XML.

/** Only web links become links: a stored value can never turn into a script URL. */
function webLink(url: string): HTMLElement {
  let ok = false;
  try {
    ok = ['https:', 'http:'].includes(new URL(url).protocol);
  } catch {
    ok = false;
  }
  return ok
    ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', class: 'break', 'data-timbre': '' }, 'Verificar en la DGII ↗')
    : h('span', { class: 'break' }, url);
}

/**
 * The printed representation, fetched with the session's credentials (a plain link could not
 * send them): saved as {RNCEmisor}{eNCF}.pdf, or opened in a tab of its own, whose PDF viewer
 * prints it (the page's CSP allows no frames, so no hidden iframe).
 */
async function openPdf(ctx: PageContext, doc: DocumentDetail, status: HTMLElement, action: 'download' | 'print', formato: string): Promise<void> {
  status.replaceChildren();
  const tab = action === 'print' ? window.open('', '_blank') : null;
  try {
    const blob = await ctx.api.download(`/${ctx.env}/documentos-ecf/${doc.internalTrackId}/pdf?formato=${encodeURIComponent(formato)}`);
    const href = URL.createObjectURL(new Blob([blob], { type: 'application/pdf' }));
    if (tab !== null) {
      tab.location.href = href;
    } else {
      const a = h('a', { href, download: `${doc.rncEmisor}${doc.encf}.pdf`, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
    }
    setTimeout(() => URL.revokeObjectURL(href), 60_000);
  } catch (err) {
    tab?.close();
    status.replaceChildren(errorBox(err));
  }
}

/** The ERP's metadata as key: value lines. */
function metadataList(metadata: Record<string, string>): HTMLElement {
  return h('dl', { class: 'metadata', 'data-field': 'metadata' }, Object.entries(metadata).map(([k, v]) => [h('dt', { class: 'mono' }, k), h('dd', { class: 'break' }, v)]));
}

/** The buyer leg (delivery to the buyer's receiver, its ARECF) and the buyer's commercial approval, as summary rows. */
function buyerLeg(doc: DocumentDetail): ([string, Node] | null)[] {
  const r = doc.receptor;
  const a = doc.aprobacionComercial;
  return [
      ['Entrega al receptor', h('span', { 'data-field': 'receptor' }, RECEPTOR_ESTADOS[r.estado])],
      r.motivo === null ? null : ['Motivo (ARECF)', h('span', { 'data-field': 'receptorMotivo' }, r.motivo)],
      r.detalle === null ? null : ['Detalle', h('span', { 'data-field': 'receptorDetalle', class: 'break' }, r.detalle)],
      r.receivedAt === null ? null : ['Acuse recibido', time(r.receivedAt)],
      ['Aprobación comercial', h('span', { 'data-field': 'aprobacion' }, a === null ? 'Sin respuesta del comprador' : APROBACIONES[a.estado])],
      a?.motivo ? ['Motivo del rechazo', h('span', { 'data-field': 'aprobacionMotivo' }, a.motivo)] : null,
      a?.fecha ? ['Fecha de la respuesta', dgiiDateTime(a.fecha)] : null,
  ];
}

/** The timbre's QR code, drawn by the API as SVG (GET …/qr.svg) and shown as an image. */
function timbreSection(ctx: PageContext, doc: DocumentDetail): HTMLElement {
  const box = h('div', { class: 'qr' }, loading('Cargando el código QR…'));
  void imageData(ctx, `/${ctx.env}/documentos-ecf/${doc.internalTrackId}/qr.svg`).then(
    (src) => box.replaceChildren(h('img', { src, alt: `Código QR del timbre de ${doc.encf}: enlace de verificación en la DGII`, width: 160, height: 160, 'data-qr': '' })),
    (err: unknown) => box.replaceChildren(errorBox(err)),
  );
  return h('section', { class: 'card', 'aria-labelledby': 'doc-timbre' },
    h('h2', { id: 'doc-timbre' }, 'Timbre'),
    h('div', { class: 'timbre' }, box, h('p', { class: 'hint' }, 'Este código lleva al enlace de verificación de la DGII, el mismo que se imprime en la representación impresa.')));
}

interface Resend {
  /** data-section and data-action of the card and its button. */
  name: string;
  title: string;
  text: string;
  label: string;
  /** Below the document's path. */
  path: string;
}

/** A card whose one action queues the document again (to DGII, or to its buyer); the page then follows it. */
function resendSection(ctx: PageContext, doc: DocumentDetail, r: Resend, queued: () => void): HTMLElement {
  const status = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'button', 'data-action': r.name }, r.label);
  button.addEventListener('click', () => void busy(button, async () => {
    status.replaceChildren();
    try {
      await ctx.api.post<unknown>(`/${ctx.env}/documentos-ecf/${encodeURIComponent(doc.internalTrackId)}/${r.path}`, {});
      queued();
    } catch (err) {
      status.replaceChildren(errorBox(err));
    }
  }));
  const headingId = `doc-${r.name}`;
  return h('section', { class: 'card', 'aria-labelledby': headingId, 'data-section': r.name },
    h('h2', { id: headingId }, r.title), h('p', null, r.text), h('div', { class: 'actions' }, button), status);
}

/**
 * A document in error (sent before a certificate was uploaded, or DGII never answered) can be
 * sent again with the same eNCF, signed anew.
 */
const RESUBMIT: Resend = {
  name: 'resubmit', title: 'No se pudo enviar', label: 'Reenviar', path: 'reenviar',
  text: 'Puede reenviarlo a la DGII con el mismo eNCF, firmado de nuevo con el certificado actual. Si no lo va a usar, anule su número en Secuencias.',
};

/** A buyer leg in error (the buyer's receiver was down past the retries, or answered garbage) can be delivered again. */
const REDELIVER: Resend = {
  name: 'redeliver', title: 'No se pudo entregar al comprador', label: 'Reenviar al receptor', path: 'receptor/reenviar',
  text: 'La DGII lo aceptó, pero el receptor del comprador no lo recibió (vea el detalle arriba). Cuando el comprador lo haya resuelto, puede entregárselo de nuevo.',
};

/**
 * The mark the API prints on a document without fiscal value, said next to the buttons: a
 * rejected e-CF is never offered for printing as if it were valid.
 */
function printMark(doc: DocumentDetail): HTMLElement | null {
  const text = doc.estado === 'rechazado'
    ? 'El PDF lleva la marca «RECHAZADO — sin validez fiscal»: la DGII rechazó este e-CF y su representación impresa no sustenta crédito fiscal.'
    : doc.environment !== 'eCF'
      ? `El PDF lleva la marca «PRUEBA — sin validez fiscal»: es un documento del ambiente de pruebas ${doc.environment}.`
      : null;
  return text === null ? null : h('p', { class: 'hint', 'data-field': 'printMark' }, text);
}

/**
 * The e-CF e-mailed to its buyer: the outcome, and "Reenviar correo" for an accepted document
 * that names a CorreoComprador, unless an e-mail is pending.
 */
function emailSection(ctx: PageContext, doc: DocumentDetail, queued: () => void): HTMLElement | null {
  const comprador = (doc.document.ECF as { Encabezado?: { Comprador?: { CorreoComprador?: unknown } } }).Encabezado?.Comprador;
  const address = typeof comprador?.CorreoComprador === 'string' ? comprador.CorreoComprador : null;
  const accepted = doc.estado === 'aceptado' || doc.estado === 'aceptado_condicional';
  if (doc.correo === null && (address === null || !accepted)) return null;
  const c = doc.correo;
  const status = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'button', class: 'secondary', 'data-action': 'resend-email' }, c === null ? 'Enviar por correo' : 'Reenviar correo');
  button.addEventListener('click', () => void busy(button, async () => {
    status.replaceChildren();
    try {
      await ctx.api.post<unknown>(`/${ctx.env}/documentos-ecf/${encodeURIComponent(doc.internalTrackId)}/correo/reenviar`, {});
      queued();
    } catch (err) {
      status.replaceChildren(errorBox(err));
    }
  }));
  const canSend = accepted && address !== null && c?.estado !== 'pendiente';
  return h('section', { class: 'card', 'aria-labelledby': 'doc-email', 'data-section': 'email' },
    h('h2', { id: 'doc-email' }, 'Correo al comprador'),
    c === null
      ? h('p', null, `No se ha enviado por correo a ${address ?? ''}.`)
      : facts([
        ['Estado', h('span', { 'data-field': 'correo' }, CORREO_ESTADOS[c.estado])],
        ['Destinatario', h('span', { class: 'break' }, c.destinatario)],
        c.detalle === null ? null : ['Detalle', h('span', { 'data-field': 'correoDetalle', class: 'break' }, c.detalle)],
        c.enviadoEn === null ? null : ['Enviado', time(c.enviadoEn)],
      ]),
    canSend ? h('div', { class: 'actions' }, button) : null,
    status);
}

/** Credit and debit notes start from the accepted document they modify, its reference filled in. */
function notesSection(doc: DocumentDetail): HTMLElement | null {
  const accepted = doc.estado === 'aceptado' || doc.estado === 'aceptado_condicional';
  if (!accepted || doc.tipo === 33 || doc.tipo === 34) return null;
  const link = (tipo: number, label: string, action: string): HTMLElement =>
    h('a', { class: 'button-link secondary', href: hashOf(PATHS.newInvoice, { tipo: String(tipo), ref: doc.internalTrackId }), 'data-action': action }, label);
  return h('section', { class: 'card', 'aria-labelledby': 'doc-notes', 'data-section': 'notes' },
    h('h2', { id: 'doc-notes' }, 'Corregir con una nota'),
    h('p', null, 'Una nota de crédito anula o rebaja este documento; una de débito le suma un cargo. Se abre el formulario con la referencia a ', h('span', { class: 'mono' }, doc.encf), ' y sus líneas.'),
    h('div', { class: 'actions' }, link(34, 'Nota de crédito', 'credit-note'), link(33, 'Nota de débito', 'debit-note')));
}

function detail(ctx: PageContext, doc: DocumentDetail, queued: () => void): (HTMLElement | null)[] {
  const xmlStatus = h('div');
  const signed = typeof doc.securityCode === 'string' && doc.securityCode !== '';
  const rejected = doc.estado === 'rechazado';
  const download = h('button', { type: 'button', class: 'secondary', 'data-action': 'xml' }, 'Descargar XML firmado');
  download.addEventListener('click', () => void busy(download, () => saveAs(ctx, `/${ctx.env}/documentos-ecf/${doc.internalTrackId}/xml`, `${doc.encf}.xml`, 'application/xml', xmlStatus)));
  const pdf = h('button', { type: 'button', class: 'secondary', 'data-action': 'pdf' }, rejected ? 'Descargar PDF marcado RECHAZADO' : 'Descargar PDF');
  const formato = select('formato', PRINT_FORMATS.map((f) => [f.value, f.label] as const), 'carta');
  pdf.addEventListener('click', () => void busy(pdf, () => openPdf(ctx, doc, xmlStatus, 'download', formato.value)));
  const printButton = h('button', { type: 'button', class: 'secondary', 'data-action': 'print' }, rejected ? 'Imprimir marcado RECHAZADO' : 'Imprimir');
  printButton.addEventListener('click', () => void busy(printButton, () => openPdf(ctx, doc, xmlStatus, 'print', formato.value)));
  return [
    h('section', { class: 'card', 'aria-labelledby': 'doc-summary' },
      h('h2', { id: 'doc-summary' }, 'Resumen'),
      facts([
        ['Estado', estadoBadge(doc.estado)],
        ['Tipo', tipoLabel(doc.tipo)],
        ['Ambiente', doc.environment],
        ['Fecha de emisión', dgiiDate(doc.fechaEmision)],
        ['Monto total', money(doc.montoTotal)],
        ['RNC emisor', doc.rncEmisor],
        ['RNC comprador', orDash(doc.rncComprador)],
        ['TrackId DGII', h('span', { class: 'mono break' }, orDash(doc.trackId))],
        ['Código DGII', h('span', { 'data-field': 'dgiiCode' }, orDash(doc.dgiiCode))],
        ['Mensaje DGII', h('span', { 'data-field': 'dgiiMessage', title: doc.dgiiMessage ?? '' }, doc.dgiiMessage === null ? '—' : spanishMessage(doc.dgiiMessage))],
        // DGII's secuenciaUtilizada: a rejected number it did not use may be emitted again or annulled.
        doc.secuenciaUtilizada === null ? null : ['Secuencia utilizada', h('span', { 'data-field': 'secuenciaUtilizada' },
          doc.secuenciaUtilizada ? 'Sí' : 'No: la DGII no usó este e-NCF; puede emitirse otro documento con él o anularlo')],
        doc.referencia === null ? null : ['Referencia (ERP)', h('span', { 'data-field': 'referencia', class: 'break' }, doc.referencia)],
        doc.metadata === null || Object.keys(doc.metadata).length === 0 ? null : ['Metadatos (ERP)', metadataList(doc.metadata)],
        signed ? ['Código de seguridad', h('span', { class: 'mono', 'data-field': 'securityCode' }, doc.securityCode ?? '')] : null,
        typeof doc.fechaHoraFirma === 'string' && doc.fechaHoraFirma !== '' ? ['Firmado', h('span', { 'data-field': 'signedAt' }, dgiiDateTime(doc.fechaHoraFirma))] : null,
        typeof doc.timbreUrl === 'string' && doc.timbreUrl !== '' ? ['Timbre', webLink(doc.timbreUrl)] : null,
        ...buyerLeg(doc),
        ['Recibido', time(doc.createdAt)],
        ['Actualizado', time(doc.updatedAt)],
        ['ID interno', h('span', { class: 'mono break' }, doc.internalTrackId)],
      ]),
      signed ? h('div', { class: 'actions' }, download, field('Formato del PDF', formato), pdf, printButton) : null,
      signed ? printMark(doc) : null,
      xmlStatus,
    ),
    notesSection(doc),
    doc.estado === 'error' ? resendSection(ctx, doc, RESUBMIT, queued) : null,
    doc.receptor.estado === 'error' ? resendSection(ctx, doc, REDELIVER, queued) : null,
    emailSection(ctx, doc, queued),
    doc.estado === 'rechazado' ? h('section', { class: 'card', 'aria-labelledby': 'doc-reasons', 'data-section': 'reasons' },
      h('h2', { id: 'doc-reasons' }, 'Por qué la DGII lo rechazó'),
      rejectionReasons(doc.dgiiMessage)) : null,
    signed ? timbreSection(ctx, doc) : null,
    buyerSection(doc.document.ECF),
    linesSection(doc.document.ECF),
    totalsSection(doc.document.ECF),
    h('section', { class: 'card', 'aria-labelledby': 'doc-history' },
      h('h2', { id: 'doc-history' }, 'Historial'),
      table(['Fecha', 'Estado', 'Código DGII', 'Mensaje DGII', 'Detalle'], doc.history.map((e) => [
        time(e.at), estadoBadge(e.estado), orDash(e.dgiiCode), e.dgiiMessage === null ? '—' : spanishMessage(e.dgiiMessage), e.detail === null ? '—' : spanishMessage(e.detail),
      ]), { 'data-list': 'history' }),
    ),
  ];
}

export async function documentPage(ctx: PageContext): Promise<void> {
  const id = ctx.params.id ?? '';
  const body = h('div', { class: 'stack' }, loading());
  ctx.root.append(h('p', null, h('a', { href: lastListHash }, '← Volver a documentos')), body);
  let shown = '';
  // After a resubmission (or a re-delivery to the buyer) the document is in process again: followed until it settles.
  const queued = (): void => {
    void show().then((again) => (again ? poll(ctx.signal, 1500, show) : undefined), (err: unknown) => {
      if (!ctx.signal.aborted) body.replaceChildren(errorBox(err));
    });
  };
  const show = async (): Promise<boolean> => {
    const doc = await ctx.api.get<DocumentDetail>(`/${ctx.env}/documentos-ecf/${encodeURIComponent(id)}`, ctx.signal);
    ctx.heading.textContent = `Documento ${doc.encf}`;
    const snapshot = JSON.stringify(doc);
    if (snapshot !== shown) {
      shown = snapshot;
      body.replaceChildren(...detail(ctx, doc, queued).filter((e): e is HTMLElement => e !== null));
    }
    // An accepted document whose buyer leg is pendiente is being delivered to its buyer.
    const delivering = (doc.estado === 'aceptado' || doc.estado === 'aceptado_condicional') && doc.receptor.estado === 'pendiente';
    // And one whose e-mail is pendiente is being sent.
    return ESTADOS[doc.estado]?.final === false || delivering || doc.correo?.estado === 'pendiente';
  };
  try {
    if (await show()) poll(ctx.signal, 1500, show);
  } catch (err) {
    if (!ctx.signal.aborted) body.replaceChildren(errorBox(err));
  }
}
