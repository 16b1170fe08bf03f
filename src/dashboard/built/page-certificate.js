// Built from src/dashboard/client/page-certificate.ts by `npm run build:dashboard`: edit that file, not this one.
import { badge, busy, confirmAction, errorBox, field, h, loading, notice, table, time } from "./dom.js";
const MAX_FILE_BYTES = 180 * 1024;
const EXPIRING_MS = 30 * 24 * 3_600_000;
const UPLOAD_FIELDS = { p12: 'Archivo', password: 'Contraseña del archivo' };
function holderName(subject) {
    return /(?:^|,\s*)CN=([^,]+)/.exec(subject)?.[1]?.trim() ?? subject;
}
function stateBadge(c) {
    const left = Date.parse(c.validTo) - Date.now();
    if (left <= 0)
        return badge('Vencido', 'bad', 'expired');
    if (!c.active)
        return badge('Inactivo', 'neutral', 'inactive');
    return left < EXPIRING_MS ? badge('Activo, vence pronto', 'warn', 'active') : badge('Activo', 'ok', 'active');
}
async function base64(file) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000)
        binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary);
}
function certificatesTable(list, remove) {
    return table(['Titular', 'RNC o cédula', 'Válido desde', 'Válido hasta', 'Estado', ''], list.map((c) => {
        const name = holderName(c.subject);
        const button = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Eliminar el certificado de ${name}` }, 'Eliminar');
        button.addEventListener('click', () => remove(c, button));
        return [
            h('span', { title: c.subject }, name),
            h('span', { class: 'mono' }, c.holderId ?? '—'),
            time(c.validFrom),
            time(c.validTo),
            stateBadge(c),
            button,
        ];
    }), { 'data-list': 'certificates', 'data-titled': '' });
}
export async function certificatePage(ctx) {
    const file = h('input', { type: 'file', name: 'p12', accept: '.p12,.pfx,application/x-pkcs12', required: true });
    const password = h('input', { type: 'password', name: 'password', autocomplete: 'off' });
    const submit = h('button', { type: 'submit' }, 'Subir certificado');
    const uploadStatus = h('div', { 'aria-live': 'polite' });
    const listStatus = h('div', { 'aria-live': 'polite' });
    const list = h('div', null, loading());
    const reload = async () => {
        try {
            const certificates = await ctx.api.get('/api/certificates', ctx.signal);
            list.replaceChildren(certificates.length === 0
                ? notice('Todavía no hay certificado: sus documentos no se pueden firmar ni enviar a la DGII.', 'warn')
                : certificatesTable(certificates, remove));
        }
        catch (err) {
            if (!ctx.signal.aborted)
                list.replaceChildren(errorBox(err));
        }
    };
    const report = (where, outcome) => {
        where.replaceChildren(outcome);
        outcome.tabIndex = -1;
        outcome.focus();
    };
    const remove = (c, button) => void busy(button, async () => {
        const warning = c.active ? ' Es el que firma sus documentos: hasta que suba otro, no se podrán enviar a la DGII.' : '';
        if (!(await confirmAction(`¿Eliminar el certificado de «${holderName(c.subject)}»?${warning}`, 'Eliminar certificado')))
            return;
        try {
            await ctx.api.delete(`/api/certificates/${encodeURIComponent(c.id)}`);
            await reload();
            report(listStatus, notice('Certificado eliminado.'));
        }
        catch (err) {
            report(listStatus, errorBox(err));
        }
    });
    const form = h('form', { class: 'stack narrow', 'aria-labelledby': 'cert-upload' }, field('Archivo (.p12 o .pfx)', file), field('Contraseña del archivo', password, 'La que puso al exportar el certificado. No se guarda.'), h('div', { class: 'actions' }, submit));
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        const chosen = file.files?.[0];
        if (chosen === undefined)
            return;
        void busy(submit, async () => {
            uploadStatus.replaceChildren();
            if (chosen.size > MAX_FILE_BYTES) {
                report(uploadStatus, h('div', { class: 'alert alert-bad', role: 'alert' }, h('p', null, 'El archivo es demasiado grande para ser un certificado (.p12 o .pfx). Revise que eligió el archivo correcto.')));
                return;
            }
            try {
                const uploaded = await ctx.api.post('/api/certificates', { p12: await base64(chosen), password: password.value });
                form.reset();
                await reload();
                report(uploadStatus, notice(`Certificado de «${holderName(uploaded.subject)}» subido: desde ahora firma sus documentos.`));
            }
            catch (err) {
                uploadStatus.replaceChildren(errorBox(err, UPLOAD_FIELDS));
                password.focus();
                password.select();
            }
        });
    });
    ctx.root.append(h('p', { class: 'lead' }, 'Con este certificado el servicio firma sus e-CF antes de enviarlos a la DGII. Use el archivo .p12 o .pfx que le entregó su entidad certificadora, a nombre del RNC con que su empresa emite: la DGII rechaza los e-CF firmados con el certificado de otro titular.'), h('section', { class: 'card' }, h('h2', { id: 'cert-upload' }, 'Subir certificado'), form, uploadStatus), h('section', { class: 'card' }, h('h2', null, 'Certificados'), listStatus, list));
    await reload();
}
