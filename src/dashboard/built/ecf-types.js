// Built from src/ecf/ecf-types.ts by `npm run build:dashboard`: edit that file, not this one.
export const ECF_TYPES = {
    31: { name: 'Factura de Crédito Fiscal Electrónica', requiresReference: false, sequenceExpires: true, buyerRnc: 'required', maxItems: 1000 },
    32: { name: 'Factura de Consumo Electrónica', requiresReference: false, sequenceExpires: false, buyerRnc: 'optional', maxItems: 1000 },
    33: { name: 'Nota de Débito Electrónica', requiresReference: true, sequenceExpires: true, buyerRnc: 'optional', maxItems: 10000 },
    34: { name: 'Nota de Crédito Electrónica', requiresReference: true, sequenceExpires: false, buyerRnc: 'optional', maxItems: 10000 },
    41: { name: 'Compras Electrónico', requiresReference: false, sequenceExpires: true, buyerRnc: 'required', maxItems: 1000 },
    43: { name: 'Gastos Menores Electrónico', requiresReference: false, sequenceExpires: true, buyerRnc: 'absent', maxItems: 1000 },
    44: { name: 'Regímenes Especiales Electrónico', requiresReference: false, sequenceExpires: true, buyerRnc: 'optional', maxItems: 1000 },
    45: { name: 'Gubernamental Electrónico', requiresReference: false, sequenceExpires: true, buyerRnc: 'required', maxItems: 1000 },
    46: { name: 'Comprobante de Exportaciones Electrónico', requiresReference: false, sequenceExpires: true, buyerRnc: 'optional', maxItems: 1000 },
    47: { name: 'Comprobante para Pagos al Exterior Electrónico', requiresReference: false, sequenceExpires: true, buyerRnc: 'absent', maxItems: 1000 },
};
export const ECF_TIPOS = Object.keys(ECF_TYPES).map(Number);
export function isEcfTipo(value) {
    return Object.hasOwn(ECF_TYPES, value);
}
