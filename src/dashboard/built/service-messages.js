// Built from src/dashboard/client/service-messages.ts by `npm run build:dashboard`: edit that file, not this one.
const PURPOSES = [
    [/^requesting an authentication seed$/, () => 'pedir la semilla de autenticación'],
    [/^validating the signed seed$/, () => 'validar la semilla firmada'],
    [/^sending the summary (\S+)$/, (m) => `enviar el resumen ${m[1]}`],
    [/^sending the annulment (\S+)$/, (m) => `enviar la anulación ${m[1]}`],
    [/^sending the commercial approval (\S+)$/, (m) => `enviar la aprobación comercial ${m[1]}`],
    [/^sending (\S+)$/, (m) => `enviar ${m[1]}`],
    [/^querying the summary of (\S+)$/, (m) => `consultar el resumen de ${m[1]}`],
    [/^querying the trackIds of (\S+)$/, (m) => `consultar los trackId de ${m[1]}`],
    [/^querying trackId (\S+)$/, (m) => `consultar el trackId ${m[1]}`],
    [/^querying the status of (\S+)$/, (m) => `consultar el estado de ${m[1]}`],
    [/^querying the timbre$/, () => 'consultar el timbre'],
];
function purpose(text) {
    for (const [re, say] of PURPOSES) {
        const m = re.exec(text);
        if (m !== null)
            return say(m);
    }
    return text;
}
const MESSAGES = [
    [/^No valid certificate: upload one with POST \/api\/certificates$/, () => 'No hay un certificado de firma válido: suba uno en Configuración → Certificado y reenvíe el documento.'],
    [/^DGII answered HTTP (\d{3}) while (.+?)(?:: (.+))?$/s, (m) => `La DGII respondió HTTP ${m[1]} al ${purpose(m[2] ?? '')}${m[3] === undefined ? '' : `: ${m[3]}`}.`],
    [/^DGII did not answer within (\d+) ms while (.+)$/s, (m) => `La DGII no respondió en ${m[1]} ms al ${purpose(m[2] ?? '')}.`],
    [/^DGII refused (\S+): (.+)$/s, (m) => `La DGII rechazó ${m[1]}: ${m[2]}`],
    [/^DGII's answer while (.+?) is larger than (\d+) bytes$/, (m) => `La respuesta de la DGII al ${purpose(m[1] ?? '')} supera ${m[2]} bytes.`],
    [/^DGII's answer while (.+?) (?:carries no|is not) (.+)$/s, (m) => `La respuesta de la DGII al ${purpose(m[1] ?? '')} no es válida (${m[2]}).`],
    [/^The certificate cannot sign: (.+)$/s, (m) => `El certificado no puede firmar: ${m[1]}`],
    [/^The document could not be signed: (.+)$/s, (m) => `No se pudo firmar el documento: ${m[1]}`],
    [/^DGII sent a seed that could not be signed: (.+)$/s, (m) => `La DGII envió una semilla que no se pudo firmar: ${m[1]}`],
    [/^Resubmitted \(POST …\/reenviar\): same eNCF, signed anew with the current certificate$/, () => 'Reenviado (POST …/reenviar): el mismo eNCF, firmado de nuevo con el certificado actual.'],
];
export function spanishMessage(text) {
    for (const [re, say] of MESSAGES) {
        const m = re.exec(text);
        if (m !== null)
            return say(m);
    }
    return text;
}
