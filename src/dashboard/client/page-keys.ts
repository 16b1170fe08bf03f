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
type Editing = (k: ApiKey) => void;

/** The environments and read-only choice of a key, as checkboxes (a new key's defaults, or a key's own scope). */
function scopeFields(environments: readonly string[] | null, readOnlyChecked: boolean): { fields: HTMLElement[]; environments(): string[]; readOnly(): boolean } {
  const envBoxes = KEY_ENVIRONMENTS.map((e) => checkbox('environments', e.env, e.label, environments === null ? e.checked : environments.includes(e.env)));
  const readOnly = checkbox('readOnly', 'true', 'Solo lectura: la clave consulta pero no emite ni cambia nada', readOnlyChecked);
  return {
    fields: [
      h('fieldset', { 'data-field': 'environments' }, h('legend', null, 'Ambientes en que vale'), ...envBoxes.map((b) => b.row)),
      h('div', { 'data-field': 'readOnly' }, readOnly.row),
    ],
    environments: () => envBoxes.filter((b) => b.box.checked).map((b) => b.box.value),
    readOnly: () => readOnly.box.checked,
  };
}

/** Changes an existing key's scope (PATCH /api/keys/{id}); `done` redraws the list with what happened. */
function scopeEditor(ctx: PageContext, k: ApiKey, done: (outcome: HTMLElement | null) => Promise<void>): HTMLElement {
  const name = keyName(k);
  const scope = scopeFields(k.environments, k.readOnly);
  const save = h('button', { type: 'submit' }, 'Guardar ámbito');
  const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => void done(null) }, 'Cancelar');
  const status = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'stack narrow', 'aria-labelledby': 'keys-edit', 'data-form': 'edit-scope' },
    h('h3', { id: 'keys-edit' }, `Ámbito de la clave «${name}»`),
    ...scope.fields,
    h('div', { class: 'actions' }, save, cancel), status);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void busy(save, async () => {
      try {
        await ctx.api.patch<ApiKey>(`/api/keys/${encodeURIComponent(k.id)}`, { environments: scope.environments(), readOnly: scope.readOnly() });
        await done(notice(`Ámbito de la clave «${name}» actualizado.`));
      } catch (err) {
        status.replaceChildren(errorBox(err));
      }
    });
  });
  return form;
}

function keysTable(ctx: PageContext, keys: readonly ApiKey[], revoked: Revoked, editing: Editing): HTMLElement {
  return table(['Nombre', 'Prefijo', 'Ámbito', 'Creada', 'Último uso', 'Estado', ''], keys.map((k) => {
    const name = keyName(k);
    const edit = h('button', { type: 'button', class: 'secondary small', 'data-action': 'edit-scope', 'aria-label': `Cambiar ámbito de la clave ${name}`, onclick: () => editing(k) }, 'Cambiar ámbito');
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
      k.revokedAt === null ? h('div', { class: 'actions' }, edit, revoke) : '',
    ];
  }), { 'data-list': 'keys', 'data-titled': '' });
}

export async function keysPage(ctx: PageContext): Promise<void> {
  const created = h('div', { 'aria-live': 'polite' });
  const listStatus = h('div', { 'aria-live': 'polite' });
  const list = h('div', null, loading());
  const editor = h('div');
  /** The key whose full value is on screen, so revoking it also takes the value away. */
  let shownKey: string | null = null;

  const reload = async (): Promise<void> => {
    try {
      const keys = await ctx.api.get<ApiKey[]>('/api/keys', ctx.signal);
      list.replaceChildren(keys.length === 0 ? empty('No hay claves API.') : keysTable(ctx, keys, revoked, editing));
    } catch (err) {
      if (!ctx.signal.aborted) list.replaceChildren(errorBox(err));
    }
  };

  const editing: Editing = (k) => {
    const form = scopeEditor(ctx, k, async (outcome) => {
      editor.replaceChildren();
      await reload();
      listStatus.replaceChildren(outcome ?? '');
      if (outcome !== null) {
        outcome.tabIndex = -1;
        outcome.focus();
      }
    });
    editor.replaceChildren(form);
    form.querySelector('input')?.focus();
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
  let scope = scopeFields(null, false);
  const scopeSlot = h('div', { class: 'stack' }, ...scope.fields);
  const submit = h('button', { type: 'submit' }, 'Crear clave');
  const form = h('form', { class: 'stack narrow', 'aria-labelledby': 'keys-new' },
    field('Nombre', name, 'Para reconocerla después, p. ej. el sistema que la usará.'),
    scopeSlot,
    h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void busy(submit, async () => {
      created.replaceChildren();
      shownKey = null;
      try {
        const value = name.value.trim();
        const key = await ctx.api.post<NewApiKey>('/api/keys', { ...(value === '' ? {} : { name: value }), environments: scope.environments(), readOnly: scope.readOnly() });
        const box = secretBox(`Clave «${keyName(key)}»`, key.key, 'new-api-key');
        created.replaceChildren(box);
        // Focused in the same turn it appears: the list reload below may take a while.
        focusSecret(box);
        shownKey = key.id;
        name.value = '';
        scope = scopeFields(null, false);
        scopeSlot.replaceChildren(...scope.fields);
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
    h('section', { class: 'card' }, h('h2', null, 'Claves'), listStatus, list, editor),
  );
  await reload();
}
