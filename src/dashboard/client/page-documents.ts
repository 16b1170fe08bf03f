import { CursorTrail, hashOf, PATHS, type PageContext } from './context.ts';
import { badge, busy, type Child, dgiiDate, field, filterDate, h, money, orDash, select, table, time } from './dom.ts';
import { saveAs } from './download.ts';
import { ENVIRONMENT_PURPOSES, ESTADOS, PAGE_SIZES, PRINT_FORMATS, type PrintFormat, TIPOS } from './labels.ts';
import { listView } from './list-view.ts';
import type { DocumentSummary, Page } from './types.ts';

// Documents of the chosen environment, newest first, with the API's own filters. The filters
// live in the address (#/documentos?estado=…) so Back and bookmarks keep them.

const SEARCH = ['encf', 'rncComprador', 'referencia'] as const;
const FILTERS = [...SEARCH, 'estado', 'tipo', 'desde', 'hasta', 'pageSize'] as const;
/** The filters an export takes: the list's, without its paging. */
const EXPORT_FILTERS = FILTERS.filter((k) => k !== 'pageSize');
const trail = new CursorTrail();
/** Where "back to the list" goes from a document: the list as it was last seen. */
export let lastListHash = `#${PATHS.documents}`;

export function estadoBadge(estado: DocumentSummary['estado']): HTMLElement {
  const e = ESTADOS[estado];
  return badge(e?.label ?? estado, e?.tone ?? 'neutral', estado);
}

export function tipoLabel(tipo: number): string {
  const name = (TIPOS as Record<number, string | undefined>)[tipo];
  return name === undefined ? String(tipo) : `${tipo} · ${name}`;
}

function filterForm(ctx: PageContext): HTMLElement {
  const q = ctx.query;
  const estado = select('estado', [['', 'Todos'], ...Object.entries(ESTADOS).map(([k, v]) => [k, v.label] as const)], q.get('estado') ?? '');
  const tipo = select('tipo', [['', 'Todos'], ...Object.keys(TIPOS).map((k) => [k, tipoLabel(Number(k))] as const)], q.get('tipo') ?? '');
  const desde = filterDate('desde', q.get('desde') ?? '');
  const hasta = filterDate('hasta', q.get('hasta') ?? '');
  const encf = h('input', { type: 'search', name: 'encf', value: q.get('encf') ?? '', pattern: 'E[0-9]{12}', placeholder: 'E310000000001', autocomplete: 'off', spellcheck: false });
  const rncComprador = h('input', { type: 'search', name: 'rncComprador', value: q.get('rncComprador') ?? '', pattern: '[0-9]{9}|[0-9]{11}', inputmode: 'numeric', autocomplete: 'off' });
  const referencia = h('input', { type: 'search', name: 'referencia', value: q.get('referencia') ?? '', maxlength: 100, autocomplete: 'off', spellcheck: false });
  const pageSize = select('pageSize', PAGE_SIZES.map((n) => [String(n), String(n)] as const), q.get('pageSize') ?? '25');
  const form = h('form', { class: 'filters', 'aria-label': 'Filtros de documentos' },
    field('eNCF', encf), field('Referencia (ERP)', referencia), field('RNC o cédula del comprador', rncComprador),
    field('Estado', estado), field('Tipo', tipo), field('Emitidos desde', desde), field('Emitidos hasta', hasta), field('Por página', pageSize),
    h('div', { class: 'actions' },
      h('button', { type: 'submit' }, 'Filtrar'),
      h('button', { type: 'button', class: 'secondary', onclick: () => ctx.navigate(`#${PATHS.documents}`) }, 'Limpiar'),
    ),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    ctx.navigate(hashOf(PATHS.documents, Object.fromEntries(FILTERS.map((k) => [k, String(data.get(k) ?? '').trim()]))));
  });
  return form;
}

/** Downloads of the list as filtered: a CSV for the accountant, a ZIP of the signed XMLs. */
function exportButtons(ctx: PageContext): HTMLElement {
  const status = h('div', { 'aria-live': 'polite' });
  const q = new URLSearchParams();
  for (const k of EXPORT_FILTERS) {
    const v = ctx.query.get(k);
    if (v !== null && v !== '') q.set(k, v);
  }
  const button = (format: 'csv' | 'zip', label: string): HTMLButtonElement => {
    const b = h('button', { type: 'button', class: 'secondary', 'data-action': `export-${format}` }, label);
    q.set('format', format);
    const path = `/${ctx.env}/documentos-ecf/export?${q.toString()}`;
    const filename = `documentos-${ctx.env}-${new Date().toISOString().slice(0, 10)}.${format}`;
    b.addEventListener('click', () => void busy(b, () => saveAs(ctx, path, filename, format === 'csv' ? 'text/csv' : 'application/zip', status)));
    return b;
  };
  return h('div', { class: 'export' }, h('div', { class: 'actions' }, button('csv', 'Exportar CSV'), button('zip', 'Descargar XML firmados (ZIP)')), status);
}

/** The PDF format the list's buttons download, kept while the page is open. */
let pdfFormat: PrintFormat = 'carta';

function pdfFormatField(): HTMLElement {
  const choice = select('formato', PRINT_FORMATS.map((f) => [f.value, f.label] as const), pdfFormat);
  choice.addEventListener('change', () => { pdfFormat = choice.value as PrintFormat; });
  return h('div', { class: 'filters pdf-format' }, field('Formato del PDF', choice, 'El formato de los botones PDF de la lista.'));
}

/** The buyer: its name when the e-CF gives one, and its RNC or cédula. */
function buyer(d: DocumentSummary): Node | string {
  if (d.razonSocialComprador === null) return orDash(d.rncComprador);
  return h('span', { 'data-field': 'comprador' }, d.razonSocialComprador, d.rncComprador === null ? null : h('small', { class: 'hint mono' }, ` ${d.rncComprador}`));
}

function pdfButton(ctx: PageContext, d: DocumentSummary, status: HTMLElement): Node | string {
  // Signed right before its first submission: until then there is no printed representation.
  if (d.securityCode === null) return '—';
  const b = h('button', { type: 'button', class: 'secondary small', 'data-action': 'pdf', 'data-focus-key': `pdf-${d.internalTrackId}`, 'aria-label': `PDF de ${d.encf}` }, 'PDF');
  b.addEventListener('click', () => void busy(b, () => saveAs(ctx, `/${ctx.env}/documentos-ecf/${d.internalTrackId}/pdf?formato=${pdfFormat}`, `${d.rncEmisor}${d.encf}.pdf`, 'application/pdf', status)));
  return b;
}

function documentsTable(ctx: PageContext, items: readonly DocumentSummary[], status: HTMLElement): HTMLElement {
  return table(['eNCF', 'Referencia', 'Comprador', 'Tipo', 'Estado', 'Emisión', 'Monto total', 'Actualizado', 'PDF'], items.map((d) => [
    h('a', { href: `#/documentos/${d.internalTrackId}`, class: 'mono', 'data-focus-key': d.internalTrackId }, d.encf),
    h('span', { class: 'break', 'data-field': 'referencia' }, orDash(d.referencia)),
    buyer(d),
    tipoLabel(d.tipo),
    estadoBadge(d.estado),
    dgiiDate(d.fechaEmision),
    money(d.montoTotal),
    time(d.updatedAt),
    pdfButton(ctx, d, status),
  ]), { 'data-list': 'documents', 'data-titled': '' });
}

/**
 * A new tenant's first steps, shown while the environment has no document at all (the
 * unfiltered list's first page came back empty): its signing certificate, an authorised eNCF
 * range, then its first document; each step says whether it is done and where to do it.
 */
async function firstSteps(ctx: PageContext): Promise<HTMLElement> {
  const [certificates, ranges] = await Promise.all([
    ctx.api.get<{ active: boolean; validTo: string }[]>('/api/certificates', ctx.signal),
    ctx.api.get<{ estado: string }[]>(`/${ctx.env}/secuencias`, ctx.signal),
  ]);
  const now = Date.now();
  const certified = certificates.some((c) => c.active && new Date(c.validTo).getTime() > now);
  const ranged = ranges.some((r) => r.estado === 'activa');
  const step = (done: boolean, title: string, text: Child, key: string): HTMLElement => h('li', { 'data-step': key, 'data-done': String(done) },
    badge(done ? 'Hecho' : 'Pendiente', done ? 'ok' : 'warn', done ? 'done' : 'pending'), ' ', h('strong', null, title), h('p', { class: 'hint' }, text));
  return h('section', { class: 'card', 'aria-labelledby': 'first-steps', 'data-section': 'first-steps' },
    h('h2', { id: 'first-steps' }, 'Primeros pasos'),
    h('ol', { class: 'steps' },
      step(certified, '1. Suba su certificado de firma', certified ? 'Su certificado está vigente: la DGII recibirá sus documentos firmados.' : ['Sin él, los documentos quedan en error hasta que lo suba y los reenvíe. ', h('a', { href: `#${PATHS.certificate}` }, 'Subir el certificado (.p12)')], 'certificate'),
      step(ranged, '2. Registre su secuencia autorizada', ranged
        ? 'Tiene un rango de eNCF activo en este ambiente.'
        : [ctx.env === 'eCF' ? 'En producción no se puede emitir sin un rango autorizado por la DGII. ' : 'Copie el rango y su vencimiento de la Oficina Virtual de la DGII (en pruebas, sin rango se numera desde 1). ', h('a', { href: `#${PATHS.sequences}` }, 'Registrar una secuencia')], 'range'),
      step(false, '3. Emita su primer documento', ['Desde su ERP con una clave API (cabecera X-API-KEY, POST /', ctx.env, '/documentos-ecf). ', h('a', { href: `#${PATHS.keys}` }, 'Crear una clave API')], 'document'),
    ));
}

export async function documentsPage(ctx: PageContext): Promise<void> {
  const query = new URLSearchParams();
  for (const k of FILTERS) {
    const v = ctx.query.get(k);
    if (v !== null && v !== '') query.set(k, v);
  }
  if (!query.has('pageSize')) query.set('pageSize', '25');
  lastListHash = hashOf(PATHS.documents, Object.fromEntries(ctx.query));
  trail.use(`${ctx.env}?${query.toString()}`);

  const pdfStatus = h('div', { 'aria-live': 'polite' });
  const steps = h('div');
  const unfiltered = [...query.keys()].every((k) => k === 'pageSize');
  let stepsShown = false;
  ctx.root.append(
    steps,
    h('p', { class: 'lead' }, 'Ambiente ', h('strong', null, ctx.env), ` (${ENVIRONMENT_PURPOSES[ctx.env]}). Los documentos en proceso se actualizan solos.`),
    filterForm(ctx),
    exportButtons(ctx),
    pdfFormatField(),
    pdfStatus,
    listView<DocumentSummary>({
      ctx, trail,
      pagerLabel: 'Páginas de documentos',
      emptyText: 'No hay documentos con estos filtros en este ambiente. Si todavía no emitió ninguno, siga los primeros pasos de arriba.',
      fetchPage: (cursor, signal) => {
        const q = new URLSearchParams(query);
        if (cursor !== null) q.set('cursor', cursor);
        return ctx.api.get<Page<DocumentSummary>>(`/${ctx.env}/documentos-ecf?${q.toString()}`, signal).then((page) => {
          if (page.items.length > 0) steps.replaceChildren();
          else if (cursor === null && unfiltered && !stepsShown) {
            stepsShown = true;
            void firstSteps(ctx).then((s) => steps.replaceChildren(s), () => undefined);
          }
          return page;
        });
      },
      render: (items) => documentsTable(ctx, items, pdfStatus),
      changing: (items) => items.some((d) => ESTADOS[d.estado]?.final === false),
    }),
  );
}
