import type { EcfTipo } from '../../ecf/ecf-types.ts';
import { checkTaxId } from '../../ecf/tax-id.ts';
import type { PageContext } from './context.ts';
import { h } from './dom.ts';
import { TYPE_FORMS } from './invoice-body.ts';
import { input, setError, slot, type Slot } from './invoice-fields.ts';
import { buyerLookup, customerSaver } from './invoice-saved.ts';

// The invoice form's buyer: the RNC or cédula checked as it is typed (DGII's check digit), a
// valid RNC filling the name (and e-mail) from a saved customer or DGII's directory, and
// "Guardar cliente". A foreign buyer's identifier is not checked; a type without a buyer hides it.

export interface BuyerFields {
  section: HTMLElement;
  /** Shows the fields the current type has. */
  sync(): void;
  /** The buyer's id as typed, and whether it may be sent (its check digit, for an RNC or cédula). */
  check(): boolean;
  /** `check`, and the id required by a type that must name its buyer; false after marking the field. */
  precheck(): boolean;
  values(): { id: string; name: string; email: string };
  fill(buyer: { id: string; name: string; email: string }): void;
  /** The fields under the paths of a 422 detail. */
  slots(): [string, Slot][];
}

/** `tipo` is the document's type as chosen now. */
export function buyerFields(ctx: PageContext, tipo: () => EcfTipo): BuyerFields {
  const buyerId = slot('RNC o cédula del comprador', input({ name: 'rncComprador', inputmode: 'numeric', autocomplete: 'off', maxlength: 20, spellcheck: 'false' }), 'Sin guiones. Se comprueba el dígito verificador de la DGII.');
  const buyerStatus = h('small', { class: 'hint', 'data-field': 'rnc-status', 'aria-live': 'polite' });
  buyerId.wrap.insertBefore(buyerStatus, buyerId.error);
  const buyerName = slot('Nombre o razón social del comprador', input({ name: 'razonSocialComprador', maxlength: 150, autocomplete: 'organization' }));
  const buyerEmail = slot('Correo del comprador', input({ type: 'email', name: 'correoComprador', maxlength: 80, autocomplete: 'email' }));
  const saveCustomer = customerSaver(ctx, () => ({ rnc: buyerId.control.value.trim(), name: buyerName.control.value.trim(), email: buyerEmail.control.value.trim() }));
  const section = h('section', { class: 'card', 'aria-labelledby': 'inv-buyer' },
    h('h2', { id: 'inv-buyer' }, 'Comprador'),
    h('div', { class: 'form-grid' }, buyerId.wrap, buyerName.wrap, buyerEmail.wrap),
    saveCustomer.element);

  const lookup = buyerLookup(ctx, (name) => {
    // Only an empty name, or one filled by an earlier lookup, is replaced.
    if (buyerName.control.value.trim() === '' || buyerName.control.dataset.filled === 'true') {
      buyerName.control.value = name;
      buyerName.control.dataset.filled = 'true';
      buyerStatus.textContent = `RNC válido: ${name}.`;
    }
  }, (c) => {
    if (buyerEmail.control.value.trim() === '' && c.email !== null) buyerEmail.control.value = c.email;
  });
  buyerName.control.addEventListener('input', () => delete buyerName.control.dataset.filled);

  function check(): boolean {
    const tf = TYPE_FORMS[tipo()];
    const raw = buyerId.control.value.replace(/[\s-]/g, '');
    setError(buyerId, null);
    buyerStatus.textContent = '';
    if (tf.buyer === 'none' || tf.buyer === 'foreign' || raw === '') return true;
    const result = checkTaxId(raw);
    if (result.valid) {
      buyerStatus.textContent = result.kind === 'rnc' ? 'RNC válido.' : 'Cédula válida.';
      if (result.kind === 'rnc') lookup(raw);
      return true;
    }
    if (result.kind === 'format') {
      if (/^\d{1,10}$/.test(raw)) buyerStatus.textContent = 'Escriba 9 dígitos (RNC) u 11 (cédula).';
      else setError(buyerId, 'Debe tener 9 dígitos (RNC) u 11 (cédula), solo números.');
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
      if (buyerLabel !== null) buyerLabel.textContent = tf.buyer === 'foreign' ? 'Identificador extranjero del comprador' : 'RNC o cédula del comprador';
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
