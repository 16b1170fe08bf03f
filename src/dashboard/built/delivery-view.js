// Built from src/dashboard/client/delivery-view.ts by `npm run build:dashboard`: edit that file, not this one.
import { badge } from "./dom.js";
import { APROBACIONES, DELIVERY_STATUSES, ESTADOS, EVENTS, labelOf, RECEPTOR_ESTADOS, RETRYING } from "./labels.js";
export function eventLabel(event) {
    return EVENTS[event] ?? event;
}
export function retrying(d) {
    const failed = d.lastError !== null || (d.lastStatusCode !== null && (d.lastStatusCode < 200 || d.lastStatusCode > 299));
    return d.status === 'pending' && failed;
}
export function deliveryBadge(d) {
    if (retrying(d))
        return badge(RETRYING.label, RETRYING.tone, 'retrying');
    const s = DELIVERY_STATUSES[d.status];
    return badge(s?.label ?? d.status, s?.tone ?? 'neutral', d.status);
}
export function subjectLabel(d) {
    const s = d.subject;
    if (s === null)
        return null;
    if ('estado' in s)
        return `${s.encf} · ${labelOf(ESTADOS, s.estado)}`;
    if ('receptor' in s)
        return `${s.encf} · ${labelOf(RECEPTOR_ESTADOS, s.receptor)}`;
    if ('aprobacionComercial' in s)
        return `${s.encf} · ${labelOf(APROBACIONES, s.aprobacionComercial)}`;
    return `${s.encf} de ${s.razonSocialEmisor ?? s.rncEmisor}`;
}
