import type { PageContext } from './context.ts';
import { badge, busy, confirmAction, empty, errorBox, field, h, loading, notice, secretBox, table, time } from './dom.ts';
import type { ApiKey, NewApiKey } from './types.ts';

// API keys for the tenant's ERP: create one (the whole key is shown once), see when each
// was last used, revoke the ones no longer needed.

function keysTable(ctx: PageContext, keys: readonly ApiKey[], reload: (message?: HTMLElement) => Promise<void>): HTMLElement {
  return table(['Nombre', 'Prefijo', 'Creada', 'Último uso', 'Estado', ''], keys.map((k) => {
    const revoke = h('button', { type: 'button', class: 'danger small', 'data-action': 'revoke', 'data-focus-key': k.id, 'aria-label': `Revocar la clave ${k.name}` }, 'Revocar');
    revoke.addEventListener('click', () => void busy(revoke, async () => {
      if (!(await confirmAction(`¿Revocar la clave «${k.name}» (${k.prefix})? Las integraciones que la usan dejarán de funcionar.`, 'Revocar clave'))) return;
      try {
        await ctx.api.delete<ApiKey>(`/api/keys/${encodeURIComponent(k.id)}`);
        await reload(notice(`Clave «${k.name}» revocada.`));
      } catch (err) {
        await reload(errorBox(err));
      }
    }));
    return [
      k.name,
      h('span', { class: 'mono break' }, k.prefix),
      time(k.createdAt),
      k.lastUsedAt === null ? 'Nunca' : time(k.lastUsedAt),
      k.revokedAt === null ? badge('Activa', 'ok', 'active') : h('span', null, badge('Revocada', 'bad', 'revoked'), ' ', time(k.revokedAt)),
      k.revokedAt === null ? revoke : '',
    ];
  }), { 'data-list': 'keys' });
}

export async function keysPage(ctx: PageContext): Promise<void> {
  const created = h('div', { 'aria-live': 'polite' });
  const listStatus = h('div', { 'aria-live': 'polite' });
  const list = h('div', null, loading());

  const reload = async (message?: HTMLElement): Promise<void> => {
    listStatus.replaceChildren(...(message === undefined ? [] : [message]));
    try {
      const keys = await ctx.api.get<ApiKey[]>('/api/keys', ctx.signal);
      list.replaceChildren(keys.length === 0 ? empty('No hay claves API.') : keysTable(ctx, keys, reload));
    } catch (err) {
      if (!ctx.signal.aborted) list.replaceChildren(errorBox(err));
    }
  };

  const name = h('input', { type: 'text', name: 'name', maxlength: '100', placeholder: 'ERP de facturación', autocomplete: 'off' });
  const submit = h('button', { type: 'submit' }, 'Crear clave');
  const form = h('form', { class: 'stack narrow', 'aria-labelledby': 'keys-new' }, field('Nombre', name, 'Para reconocerla después, p. ej. el sistema que la usará.'), h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void busy(submit, async () => {
      created.replaceChildren();
      try {
        const value = name.value.trim();
        const key = await ctx.api.post<NewApiKey>('/api/keys', value === '' ? {} : { name: value });
        created.replaceChildren(secretBox(`Clave «${key.name}»`, key.key, 'new-api-key'));
        name.value = '';
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
