// Built from src/dashboard/client/ecf-view.ts by `npm run build:dashboard`: edit that file, not this one.
import { facts, h, money, orDash, table } from "./dom.js";
function obj(v) {
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {};
}
function text(v) {
    return typeof v === 'string' || typeof v === 'number' ? String(v) : null;
}
function amount(v) {
    const t = text(v);
    return t === null ? '—' : money(t);
}
const RATES = [['1', '18 %'], ['2', '16 %'], ['3', '0 %']];
const BILLING = { 1: 'ITBIS 18 %', 2: 'ITBIS 16 %', 3: 'ITBIS 0 %', 4: 'Exento' };
export function buyerSection(ecf, id = 'doc-buyer') {
    const c = obj(obj(obj(ecf).Encabezado).Comprador);
    return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, 'Comprador'), Object.keys(c).length === 0 ? h('p', { class: 'empty' }, 'Sin datos del comprador (consumidor final).') : facts([
        ['Razón social', h('span', { 'data-field': 'buyerName' }, orDash(text(c.RazonSocialComprador)))],
        ['RNC o cédula', orDash(text(c.RNCComprador) ?? text(c.IdentificadorExtranjero))],
        text(c.DireccionComprador) === null ? null : ['Dirección', orDash(text(c.DireccionComprador))],
        text(c.CorreoComprador) === null ? null : ['Correo', orDash(text(c.CorreoComprador))],
    ]));
}
export function linesSection(ecf) {
    const raw = obj(obj(ecf).DetallesItems).Item;
    const items = (Array.isArray(raw) ? raw : [raw]).map(obj).filter((i) => Object.keys(i).length > 0);
    return h('section', { class: 'card', 'aria-labelledby': 'doc-lines' }, h('h2', { id: 'doc-lines' }, 'Líneas'), table(['#', 'Descripción', 'Cantidad', 'Precio unitario', 'Facturación', 'Monto'], items.map((i) => [
        orDash(text(i.NumeroLinea)),
        orDash(text(i.NombreItem)),
        orDash(text(i.CantidadItem)),
        amount(i.PrecioUnitarioItem),
        BILLING[text(i.IndicadorFacturacion) ?? ''] ?? orDash(text(i.IndicadorFacturacion)),
        amount(i.MontoItem),
    ]), { 'data-list': 'lines' }));
}
export function totalsSection(ecf) {
    const t = obj(obj(obj(ecf).Encabezado).Totales);
    const rates = RATES.filter(([n]) => t[`MontoGravadoI${n}`] !== undefined || t[`TotalITBIS${n}`] !== undefined);
    return h('section', { class: 'card', 'aria-labelledby': 'doc-totals' }, h('h2', { id: 'doc-totals' }, 'Totales'), facts([
        t.MontoGravadoTotal === undefined ? null : ['Monto gravado', amount(t.MontoGravadoTotal)],
        t.MontoExento === undefined ? null : ['Monto exento', amount(t.MontoExento)],
        ['ITBIS total', h('span', { 'data-field': 'totalItbis' }, amount(t.TotalITBIS))],
        t.MontoImpuestoAdicional === undefined ? null : ['Impuestos adicionales', amount(t.MontoImpuestoAdicional)],
        ['Monto total', h('strong', null, amount(t.MontoTotal))],
    ]), h('h3', null, 'Desglose del ITBIS'), rates.length === 0 ? h('p', { class: 'empty' }, 'Sin ITBIS.') : table(['Tasa', 'Base gravada', 'ITBIS'], rates.map(([n, label]) => [
        label, amount(t[`MontoGravadoI${n}`]), amount(t[`TotalITBIS${n}`]),
    ]), { 'data-list': 'itbis' }));
}
