import type { PageContext } from './context.ts';
import { badge, busy, confirmAction, empty, errorBox, field, focusSecret, h, loading, notice, secretBox, table, time } from './dom.ts';
import { DEFAULT_KEY_NAME } from './labels.ts';
import type { ApiKey, NewApiKey } from './types.ts';
import type { Environment } from '../../environments.ts';

/** The choices of a new key's environments; the API's default (both test environments) is checked. */
const KEY_ENVIRONMENTS = [
  { env: 'TesteCF', label: 'TesteCF (pruebas)', checked: true },
  { env: 'CerteCF', label: 'CerteCF (certificación)', checked: true },
  { env: 'eCF', label: 'eCF (producción)', checked: false },
] as const satisfies readonly { env: Environment; label: string; checked: boolean }[];

function scopeText(k: Pick<ApiKey, 'environments' | 'readOnly'>): HTMLElement {
  return h('span', null, k.environments.join(', '), ' · ', k.readOnly ? badge('Solo lectura', 'warn', 'read-only') : 'Lectura y escritura');
}

function checkbox(name: string, value: string, label: string, checked: boolean): { box: HTMLInputElement; row: HTMLElement } {
  const box = h('input', { type: 'checkbox', name, value, checked });
  return { box, row: h('label', { class: 'check' }, box, ' ', label) };
}

// API keys for the tenant's ERP: create one (the whole key is shown once), see when each
// was last used, revoke the ones no longer needed.

export function keyName(k: Pick<ApiKey, 'name'>): string {
  return k.name === DEFAULT_KEY_NAME.server ? DEFAULT_KEY_NAME.shown : k.name;
}

type Revoked = (k: ApiKey, outcome: HTMLElement) => Promise<void>;

function keysTable(ctx: PageContext, keys: readonly ApiKey[], revoked: Revoked): HTMLElement {
  return table(['Nombre', 'Prefijo', 'Ámbito', 'Creada', 'Último uso', 'Estado', ''], keys.map((k) => {
    const name = keyName(k);
    const revoke = h('button', { type: 'button', class: 'danger small', 'data-action': 'revoke', 'aria-label': `Revocar la clave ${name}` }, 'Revocar');
    revoke.addEventListener('click', () => void busy(revoke, async () => {
      if (!(await confirmAction(`¿Revocar la clave «${name}» (${k.prefix})? Las integraciones que la usan dejarán de funcionar.`, 'Revocar clave'))) return;
      try {
        await ctx.api.delete<ApiKey>(`/api/keys/${encodeURIComponent(k.id)}`);
        await revoked(k, notice(`Clave «${name}» revocada.`));
      } catch (err) {
        await revoked(k, errorBox(err));
      }
    }));
    return [
      name,
      h('span', { class: 'mono break' }, k.prefix),
      scopeText(k),
      time(k.createdAt),
      k.lastUsedAt === null ? 'Nunca' : time(k.lastUsedAt),
      k.revokedAt === null ? badge('Activa', 'ok', 'active') : h('span', null, badge('Revocada', 'bad', 'revoked'), ' ', time(k.revokedAt)),
      k.revokedAt === null ? revoke : '',
    ];
  }), { 'data-list': 'keys', 'data-titled': '' });
}

export async function keysPage(ctx: PageContext): Promise<void> {
  const created = h('div', { 'aria-live': 'polite' });
  const listStatus = h('div', { 'aria-live': 'polite' });
  const list = h('div', null, loading());
  /** The key whose full value is on screen, so revoking it also takes the value away. */
  let shownKey: string | null = null;

  const reload = async (): Promise<void> => {
    try {
      const keys = await ctx.api.get<ApiKey[]>('/api/keys', ctx.signal);
      list.replaceChildren(keys.length === 0 ? empty('No hay claves API.') : keysTable(ctx, keys, revoked));
    } catch (err) {
      if (!ctx.signal.aborted) list.replaceChildren(errorBox(err));
    }
  };

  // The Revocar button is gone with the redrawn row, so the focus goes to what happened.
  const revoked: Revoked = async (k, outcome) => {
    if (k.id === shownKey) {
      created.replaceChildren();
      shownKey = null;
    }
    await reload();
    listStatus.replaceChildren(outcome);
    outcome.tabIndex = -1;
    outcome.focus();
  };

  const name = h('input', { type: 'text', name: 'name', maxlength: '100', placeholder: 'ERP de facturación', autocomplete: 'off' });
  const envBoxes = KEY_ENVIRONMENTS.map((e) => checkbox('environments', e.env, e.label, e.checked));
  const readOnly = checkbox('readOnly', 'true', 'Solo lectura: la clave consulta pero no emite ni cambia nada', false);
  const submit = h('button', { type: 'submit' }, 'Crear clave');
  const form = h('form', { class: 'stack narrow', 'aria-labelledby': 'keys-new' },
    field('Nombre', name, 'Para reconocerla después, p. ej. el sistema que la usará.'),
    h('fieldset', { 'data-field': 'environments' }, h('legend', null, 'Ambientes en que vale'), ...envBoxes.map((b) => b.row)),
    h('div', { 'data-field': 'readOnly' }, readOnly.row),
    h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void busy(submit, async () => {
      created.replaceChildren();
      shownKey = null;
      try {
        const value = name.value.trim();
        const environments = envBoxes.filter((b) => b.box.checked).map((b) => b.box.value);
        const key = await ctx.api.post<NewApiKey>('/api/keys', { ...(value === '' ? {} : { name: value }), environments, readOnly: readOnly.box.checked });
        const box = secretBox(`Clave «${keyName(key)}»`, key.key, 'new-api-key');
        created.replaceChildren(box);
        // Focused in the same turn it appears: the list reload below may take a while.
        focusSecret(box);
        shownKey = key.id;
        name.value = '';
        for (const [i, b] of envBoxes.entries()) b.box.checked = KEY_ENVIRONMENTS[i]?.checked ?? false;
        readOnly.box.checked = false;
        listStatus.replaceChildren();
        await reload();
      } catch (err) {
        created.replaceChildren(errorBox(err));
      }
    });
  });

  ctx.root.append(
    h('section', { class: 'card' },
      h('h2', { id: 'keys-new' }, 'Nueva clave'),
      h('p', { class: 'hint' }, 'Su sistema la envía en la cabecera X-API-KEY para emitir y consultar documentos.'),
      form, created),
    h('section', { class: 'card' }, h('h2', null, 'Claves'), listStatus, list),
  );
  await reload();
}
