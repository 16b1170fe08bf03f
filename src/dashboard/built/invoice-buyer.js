// Built from src/dashboard/client/invoice-buyer.ts by `npm run build:dashboard`: edit that file, not this one.
import { checkTaxId } from "./tax-id.js";
import { h } from "./dom.js";
import { TYPE_FORMS } from "./invoice-body.js";
import { input, setError, slot } from "./invoice-fields.js";
import { buyerLookup, customerSaver } from "./invoice-saved.js";
export function buyerFields(ctx, tipo) {
    const buyerId = slot('RNC o cédula del comprador', input({ name: 'rncComprador', inputmode: 'numeric', autocomplete: 'off', maxlength: 20, spellcheck: 'false' }), 'Sin guiones. Se comprueba el dígito verificador de la DGII.');
    const buyerStatus = h('small', { class: 'hint', 'data-field': 'rnc-status', 'aria-live': 'polite' });
    buyerId.wrap.insertBefore(buyerStatus, buyerId.error);
    const buyerName = slot('Nombre o razón social del comprador', input({ name: 'razonSocialComprador', maxlength: 150, autocomplete: 'organization' }));
    const buyerEmail = slot('Correo del comprador', input({ type: 'email', name: 'correoComprador', maxlength: 80, autocomplete: 'email' }));
    const saveCustomer = customerSaver(ctx, () => ({ rnc: buyerId.control.value.trim(), name: buyerName.control.value.trim(), email: buyerEmail.control.value.trim() }));
    const section = h('section', { class: 'card', 'aria-labelledby': 'inv-buyer' }, h('h2', { id: 'inv-buyer' }, 'Comprador'), h('div', { class: 'form-grid' }, buyerId.wrap, buyerName.wrap, buyerEmail.wrap), saveCustomer.element);
    const lookup = buyerLookup(ctx, (name) => {
        if (buyerName.control.value.trim() === '' || buyerName.control.dataset.filled === 'true') {
            buyerName.control.value = name;
            buyerName.control.dataset.filled = 'true';
            buyerStatus.textContent = `RNC válido: ${name}.`;
        }
    }, (c) => {
        if (buyerEmail.control.value.trim() === '' && c.email !== null)
            buyerEmail.control.value = c.email;
    });
    buyerName.control.addEventListener('input', () => delete buyerName.control.dataset.filled);
    function check() {
        const tf = TYPE_FORMS[tipo()];
        const raw = buyerId.control.value.replace(/[\s-]/g, '');
        setError(buyerId, null);
        buyerStatus.textContent = '';
        if (tf.buyer === 'none' || tf.buyer === 'foreign' || raw === '')
            return true;
        const result = checkTaxId(raw);
        if (result.valid) {
            buyerStatus.textContent = result.kind === 'rnc' ? 'RNC válido.' : 'Cédula válida.';
            if (result.kind === 'rnc')
                lookup(raw);
            return true;
        }
        if (result.kind === 'format') {
            if (/^\d{1,10}$/.test(raw))
                buyerStatus.textContent = 'Escriba 9 dígitos (RNC) u 11 (cédula).';
            else
                setError(buyerId, 'Debe tener 9 dígitos (RNC) u 11 (cédula), solo números.');
            return false;
        }
        setError(buyerId, `El dígito verificador no corresponde a ${result.kind === 'rnc' ? 'un RNC' : 'una cédula'}: revise el número.`);
        return false;
    }
    buyerId.control.addEventListener('input', () => check());
    return {
        section,
        sync: () => {
            const tf = TYPE_FORMS[tipo()];
            section.hidden = tf.buyer === 'none';
            const buyerLabel = buyerId.wrap.querySelector('label');
            if (buyerLabel !== null)
                buyerLabel.textContent = tf.buyer === 'foreign' ? 'Identificador extranjero del comprador' : 'RNC o cédula del comprador';
            buyerId.control.setAttribute('inputmode', tf.buyer === 'foreign' ? 'text' : 'numeric');
            buyerEmail.wrap.hidden = !tf.email;
        },
        check,
        precheck: () => {
            let ok = check();
            if (TYPE_FORMS[tipo()].buyer === 'rnc-required' && buyerId.control.value.trim() === '') {
                setError(buyerId, `Es obligatorio para el tipo ${tipo()}.`);
                ok = false;
            }
            return ok;
        },
        values: () => ({ id: buyerId.control.value.replace(/[\s-]/g, ''), name: buyerName.control.value, email: buyerEmail.control.value }),
        fill: (buyer) => {
            buyerId.control.value = buyer.id;
            buyerName.control.value = buyer.name;
            buyerEmail.control.value = buyer.email;
        },
        slots: () => [
            ['ECF.Encabezado.Comprador.RNCComprador', buyerId], ['ECF.Encabezado.Comprador.IdentificadorExtranjero', buyerId],
            ['ECF.Encabezado.Comprador.RazonSocialComprador', buyerName], ['ECF.Encabezado.Comprador.CorreoComprador', buyerEmail],
            ['ECF.Encabezado.Comprador', buyerId],
        ],
    };
}
