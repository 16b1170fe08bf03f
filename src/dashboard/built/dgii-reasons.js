// Built from src/dashboard/client/dgii-reasons.ts by `npm run build:dashboard`: edit that file, not this one.
import { h } from "./dom.js";
const REASONS = [
    [/e-?NCF.*(ya fue utilizado|duplicad|existe)/i, 'Este número de comprobante (eNCF) ya se usó. Emita el documento de nuevo con un número nuevo.'],
    [/fecha.*(posterior|futur)/i, 'La fecha de emisión es posterior a hoy. Corrija la fecha y emita de nuevo.'],
    [/(secuencia|rango).*(vencid|no autorizad|agotad)|vencimiento.*secuencia/i, 'La secuencia de comprobantes no está autorizada o ya venció. Solicite una secuencia nueva en la Oficina Virtual de la DGII.'],
    [/RNC.*comprador|comprador.*RNC/i, 'El RNC o la cédula del comprador no es válido para la DGII. Verifique el número con el cliente.'],
    [/RNC.*emisor|emisor.*(no autorizado|inv)/i, 'Su RNC no está autorizado como emisor electrónico en este ambiente.'],
    [/firma|signature|certificad/i, 'La firma digital no es válida. Revise que el certificado cargado esté vigente y pertenezca a su RNC.'],
    [/(ITBIS|monto|total|suma|c[aá]lculo)/i, 'Los montos no cuadran: algún total o el ITBIS no es la suma de las líneas. Revise los importes y emita de nuevo.'],
    [/(esquema|xsd|formato|estructura)/i, 'El documento no tiene la estructura que la DGII espera.'],
    [/Rechazado por solicitud de prueba/i, 'Rechazo de prueba: el simulador de la DGII lo rechazó a propósito.'],
];
export function rejectionReasons(message) {
    const parts = (message ?? '').split(/;\s*/).map((p) => p.trim()).filter((p) => p !== '');
    if (parts.length === 0)
        return h('p', null, 'La DGII rechazó el documento sin indicar el motivo. Consulte el TrackId en la Oficina Virtual de la DGII.');
    return h('ul', { class: 'reasons', 'data-list': 'reasons' }, parts.map((text) => {
        const known = REASONS.find(([pattern]) => pattern.test(text));
        return h('li', null, h('strong', null, known?.[1] ?? 'La DGII rechazó el documento por este motivo:'), h('br'), h('span', { class: 'hint' }, `Mensaje de la DGII: «${text}»`));
    }));
}
