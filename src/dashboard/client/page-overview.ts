import { hashOf, PATHS, type PageContext } from './context.ts';
import { errorBox, field, filterDate, h, loading, table } from './dom.ts';
import { ESTADOS, type Estado } from './labels.ts';
import type { Statistics } from './types.ts';

// How the month is going: counts by estado for today, this month and a chosen range (in
// the address), documents per day drawn as an SVG bar chart, the acceptance rate, and the
// webhook deliveries in trouble. One request: GET /{env}/estadisticas.

type Period = Statistics['today'];
const SVG = 'http://www.w3.org/2000/svg';
const PERCENT = new Intl.NumberFormat('es-DO', { style: 'percent', maximumFractionDigits: 1 });

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

function rate(p: Period): string {
  return p.acceptanceRate === null ? '—' : PERCENT.format(p.acceptanceRate);
}

function periodCard(title: string, id: string, p: Period): HTMLElement {
  const estados = Object.keys(ESTADOS) as Estado[];
  return h('section', { class: 'card stat', 'aria-labelledby': id, 'data-period': id },
    h('h2', { id }, title),
    h('p', { class: 'big' }, h('span', { 'data-field': 'total' }, String(p.total)), ' documentos'),
    h('p', null, 'Tasa de aceptación: ', h('strong', { 'data-field': 'acceptance' }, rate(p))),
    h('p', { class: 'hint', 'data-field': 'acceptance-basis' }, 'Aceptados y aceptados condicionales entre los documentos que la DGII ya juzgó (aceptados, condicionales y rechazados); no cuenta los que están en proceso ni en error.'),
    h('ul', { class: 'counts' }, estados.map((e) => h('li', null, h('span', { class: `badge badge-${ESTADOS[e].tone}` }, ESTADOS[e].label), ' ', h('span', { 'data-estado': e }, String(p.byEstado[e] ?? 0))))));
}

/** Bars per day, the accepted part darker; the numbers are also in the table below it. */
function chart(perDay: Statistics['range']['perDay']): SVGSVGElement {
  const w = 720;
  const hgt = 200;
  const pad = 24;
  const max = Math.max(1, ...perDay.map((d) => d.total));
  const step = (w - pad) / Math.max(1, perDay.length);
  const bar = Math.max(1, step * 0.75);
  const scale = (n: number): number => ((hgt - pad) * n) / max;
  const bars = perDay.flatMap((d, i) => {
    const x = pad + i * step;
    const ok = d.byEstado.aceptado + d.byEstado.aceptado_condicional;
    return [
      svg('rect', { x, y: hgt - pad - scale(d.total), width: bar, height: scale(d.total), class: 'bar-all' }, svg('title', {}, `${d.date}: ${d.total}`)),
      svg('rect', { x, y: hgt - pad - scale(ok), width: bar, height: scale(ok), class: 'bar-ok' }),
    ];
  });
  const first = perDay[0]?.date ?? '';
  const last = perDay[perDay.length - 1]?.date ?? '';
  return svg('svg', { viewBox: `0 0 ${w} ${hgt}`, role: 'img', 'aria-label': `Documentos por día del ${first} al ${last}; máximo ${max} en un día`, class: 'chart', 'data-chart': 'per-day' },
    svg('line', { x1: pad, y1: hgt - pad, x2: w, y2: hgt - pad, class: 'axis' }),
    svg('text', { x: 0, y: 12, class: 'label' }, String(max)),
    svg('text', { x: pad, y: hgt - 6, class: 'label' }, first),
    svg('text', { x: w, y: hgt - 6, class: 'label', 'text-anchor': 'end' }, last),
    ...bars);
}

export async function overviewPage(ctx: PageContext): Promise<void> {
  const desde = filterDate('desde', ctx.query.get('desde') ?? '');
  const hasta = filterDate('hasta', ctx.query.get('hasta') ?? '');
  const form = h('form', { class: 'filters', 'aria-label': 'Rango de fechas' },
    field('Desde', desde), field('Hasta', hasta),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Ver rango')));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    ctx.navigate(hashOf(PATHS.overview, { desde: desde.value, hasta: hasta.value }));
  });
  const body = h('div', { class: 'stack' }, loading());
  ctx.root.append(h('p', { class: 'lead' }, 'Ambiente ', h('strong', null, ctx.env), '. Por fecha de emisión, en hora dominicana.'), form, body);
  const q = new URLSearchParams();
  for (const k of ['desde', 'hasta']) {
    const v = ctx.query.get(k);
    if (v !== null && v !== '') q.set(k, v);
  }
  try {
    const s = await ctx.api.get<Statistics>(`/${ctx.env}/estadisticas?${q.toString()}`, ctx.signal);
    const r = s.range;
    body.replaceChildren(
      h('div', { class: 'stats' }, periodCard('Hoy', 'st-today', s.today), periodCard('Este mes', 'st-month', s.month), periodCard(`Del ${r.desde} al ${r.hasta}`, 'st-range', r)),
      h('section', { class: 'card', 'aria-labelledby': 'st-deliveries', 'data-section': 'deliveries' },
        h('h2', { id: 'st-deliveries' }, 'Entregas de webhooks con problemas'),
        h('p', null, h('strong', { 'data-field': 'failing' }, String(s.deliveries.failing)), ' reintentándose ahora · ',
          h('strong', { 'data-field': 'abandoned' }, String(s.deliveries.abandoned)), ' abandonadas desde el ', r.desde, '. ',
          h('a', { href: hashOf(PATHS.deliveries, { status: 'failed' }) }, 'Ver entregas fallidas'))),
      h('section', { class: 'card', 'aria-labelledby': 'st-chart' },
        h('h2', { id: 'st-chart' }, 'Documentos por día'),
        h('p', { class: 'hint' }, 'Altura total: documentos emitidos ese día; parte oscura: aceptados.'),
        chart(r.perDay),
        h('details', null, h('summary', null, 'Ver los números por día'),
          table(['Fecha', 'Total', 'Aceptados', 'Rechazados'], r.perDay.filter((d) => d.total > 0).map((d) => [
            d.date, String(d.total), String(d.byEstado.aceptado + d.byEstado.aceptado_condicional), String(d.byEstado.rechazado),
          ]), { 'data-list': 'per-day' }))),
    );
  } catch (err) {
    if (!ctx.signal.aborted) body.replaceChildren(errorBox(err));
  }
}
