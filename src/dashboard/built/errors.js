// Built from src/dashboard/client/errors.ts by `npm run build:dashboard`: edit that file, not this one.
import { ESTADOS, labelOf, RECEPTOR_ESTADOS } from "./labels.js";
const SENTENCES = {
    NETWORK: 'No se pudo conectar con el servicio. Revise su conexión e intente de nuevo.',
    INVALID_CREDENTIALS: 'Correo o contraseña incorrectos.',
    UNAUTHORIZED: 'Debe ingresar para continuar.',
    TOKEN_EXPIRED: 'Su sesión expiró. Ingrese de nuevo.',
    INVALID_TOKEN: 'Su sesión ya no es válida. Ingrese de nuevo.',
    INVALID_API_KEY: 'La clave API no es válida o fue revocada.',
    FORBIDDEN: 'No tiene permiso para esta acción.',
    REGISTRATION_DISABLED: 'Este servidor no admite el registro de nuevas cuentas. Pida una cuenta al administrador del servicio.',
    NOT_FOUND: 'No se encontró: puede que se haya eliminado o que pertenezca a otro ambiente.',
    METHOD_NOT_ALLOWED: 'El servicio no admite esta operación.',
    EMAIL_ALREADY_REGISTERED: 'Ya existe una cuenta con este correo. Ingrese con ella o use otro correo.',
    RNC_ALREADY_REGISTERED: 'Ya existe una empresa registrada con este RNC.',
    VALIDATION_ERROR: 'Revise los datos:',
    RATE_LIMITED: 'Demasiadas solicitudes seguidas. Espere un momento e intente de nuevo.',
    PAYLOAD_TOO_LARGE: 'Lo enviado es demasiado grande para el servicio.',
    INVALID_JSON: 'El servicio no pudo leer la solicitud.',
    INVALID_REQUEST: 'El servicio no pudo leer la solicitud.',
    UNSUPPORTED_MEDIA_TYPE: 'El servicio no pudo leer la solicitud.',
    REQUEST_TIMEOUT: 'La solicitud tardó demasiado en llegar al servicio. Intente de nuevo.',
    INTERNAL: 'Error interno del servicio. Intente de nuevo; si se repite, avise al administrador.',
    CONFLICT: 'No se puede hacer ahora: el estado actual no lo permite.',
    SEQUENCE_EXHAUSTED: 'No quedan números autorizados de este tipo: registre en Secuencias el rango que le autorizó la DGII.',
    ENCF_ANNULLED: 'Ese eNCF fue anulado ante la DGII y nunca se podrá usar.',
    SERVICE_UNAVAILABLE: 'El servicio no está disponible por el momento. Intente de nuevo en unos minutos.',
};
export function errorSentence(code) {
    return SENTENCES[code] ?? null;
}
const FIELDS = {
    email: 'Correo electrónico',
    password: 'Contraseña',
    name: 'Nombre',
    rnc: 'RNC o cédula',
    webhookUrl: 'URL del receptor',
    webhookSecret: 'Secreto',
    p12: 'Archivo del certificado',
    'p12.privateKey': 'Clave privada',
    'p12.certificate.validFrom': 'Vigencia del certificado',
    'p12.certificate.validTo': 'Vigencia del certificado',
};
export function fieldName(path, overrides = {}) {
    return overrides[path] ?? FIELDS[path] ?? null;
}
const LOCAL_DATE = new Intl.DateTimeFormat('es-DO', { day: '2-digit', month: '2-digit', year: 'numeric' });
const day = (iso) => {
    if (iso === undefined)
        return '';
    const d = new Date(iso);
    if (Number.isNaN(d.getTime()))
        return iso;
    const p = Object.fromEntries(LOCAL_DATE.formatToParts(d).map((x) => [x.type, x.value]));
    return `${p.day}-${p.month}-${p.year}`;
};
const DETAILS = [
    [/^is required$/, () => 'es obligatorio.'],
    [/^must not be empty$/, () => 'no puede estar vacío.'],
    [/^must have at least (\d+) characters$/, (n) => `debe tener al menos ${n} caracteres.`],
    [/^must have at most (\d+) characters$/, (n) => `debe tener como máximo ${n} caracteres.`],
    [/^has an invalid format$/, () => 'no tiene un formato válido.'],
    [/^must be a string$/, () => 'debe ser un texto.'],
    [/^is not a known field$/, () => 'no es un campo conocido.'],
    [/^must be an email address$/, () => 'debe ser una dirección de correo.'],
    [/^must be an RNC \(9 digits\) or cédula \(11 digits\)$/, () => 'debe ser un RNC (9 dígitos) o una cédula (11 dígitos), sin guiones.'],
    [/^must be an absolute http or https URL$/, () => 'debe ser una dirección completa que empiece por https:// o http://.'],
    [/^must use http or https$/, () => 'debe empezar por https:// o http://.'],
    [/^must not carry credentials/, () => 'no debe llevar usuario ni contraseña: los envíos se autentican con el secreto de firma.'],
    [/^is not reachable from this service: (.*)$/, (why) => `no es accesible desde este servicio (${why}).`],
    [/^is not configured/, () => 'no está configurada. Guarde primero una URL.'],
    [/^must be the \.p12\/\.pfx file encoded in base64$/, () => 'no es un archivo .p12/.pfx legible.'],
    [/^The certificate password is incorrect\.$/, () => 'no es correcta.'],
    [/^The certificate file is not a valid PKCS#12/, () => 'no es un certificado .p12/.pfx válido, o está dañado.'],
    [/^The certificate file is protected with an algorithm this service does not support\..*?(?:: (openssl .*))?$/s, (steps) => steps === undefined
            ? 'está protegido con un cifrado que este servicio no admite.'
            : `está protegido con un cifrado antiguo que este servicio no admite. Vuelva a exportarlo con OpenSSL 3 (pide la contraseña actual y luego la nueva): ${steps}`],
    [/^The certificate file does not contain a private key/, () => 'no contiene la clave privada. Expórtelo de nuevo incluyendo la clave privada.'],
    [/^The certificate file does not contain an X\.509 certificate\.$/, () => 'no contiene ningún certificado.'],
    [/^The private key is (.*); DGII signatures require an RSA key\.$/, (type) => `es de tipo ${type}; la DGII exige una clave RSA.`],
    [/^The RSA key has (.*) bits; at least (\d+) are required\.$/, (bits, min) => `tiene ${bits} bits; se requieren al menos ${min}.`],
    [/^The private key does not belong to the certificate\.$/, () => 'no corresponde al certificado.'],
    [/^The certificate is not valid until (\S+)\.$/, (iso) => `el certificado no es válido hasta el ${day(iso)}.`],
    [/^The certificate expired on (\S+)\.$/, (iso) => `el certificado venció el ${day(iso)}.`],
    [/^must be one of ([\d, ]+)$/, (list) => `debe ser uno de ${list}.`],
    [/^must start with (E\d\d)$/, (prefix) => `debe empezar por ${prefix}, el tipo elegido.`],
    [/^must not be before desde$/, () => 'no puede ser anterior a «Desde».'],
    [/^must be at least 1$/, () => 'debe ser 1 o más.'],
    [/^is required for type (\d+)$/, (tipo) => `es obligatoria para el tipo ${tipo}.`],
    [/^must be a date, dd-MM-yyyy$/, () => 'debe ser una fecha válida.'],
    [/^type (\d+) sequences carry no expiry date$/, (tipo) => `las secuencias del tipo ${tipo} no vencen: déjela vacía.`],
    [/^(E\d{12})–(E\d{12}) must lie within one registered range of type (\d+), or consist only of documents in error$/, (a, b, tipo) => `${a}–${b} debe estar dentro de una secuencia registrada del tipo ${tipo}, o ser solo de documentos en error.`],
];
function reword(text, table) {
    for (const [pattern, say] of table) {
        const m = pattern.exec(text);
        if (m !== null)
            return say(...m.slice(1));
    }
    return null;
}
export function detailSentence(d) {
    return reword(d.message, DETAILS);
}
const CONFLICTS = [
    [/^Only a document in error can be resubmitted; this one is (\w+)$/, (e = '') => `Solo un documento en error se puede reenviar a la DGII; este está en «${labelOf(ESTADOS, e)}».`],
    [/^Only a buyer leg in error can be delivered again; this one is (\w+)$/, (e = '') => `Solo una entrega al comprador que terminó en error se puede repetir; esta está en «${labelOf(RECEPTOR_ESTADOS, e)}».`],
    [/changed (?:state )?meanwhile/, () => 'El documento cambió mientras tanto: vea su estado actual.'],
    [/^A commercial approval was already decided for the e-CF (E\d{12})$/, (encf) => `Ya se decidió la aprobación comercial del e-CF ${encf}.`],
    [/^No valid certificate to sign/, () => 'No hay un certificado vigente con el que firmar: súbalo en la página del certificado.'],
    [/^No webhook secret is set/, () => 'No hay un secreto que rotar: genere uno primero.'],
    [/^The range overlaps the registered range (E\d{12})–(E\d{12})/, (a, b) => `Se superpone con la secuencia registrada ${a}–${b}.`],
    [/^The numbers (E\d{12})–(E\d{12}) are already in an annulment$/, (a, b) => `Los números ${a}–${b} ya están en una anulación.`],
    [/^The range holds (E\d{12}), which is (\w+):/, (encf, e = '') => `Incluye ${encf}, que está en «${labelOf(ESTADOS, e)}»: solo se anulan números sin usar y documentos en error.`],
];
export function conflictReason(message) {
    return reword(message, CONFLICTS);
}
const DELIVERY_ERRORS = [
    [/^receiver answered (\d+)$/, (s) => `el receptor respondió ${s}`],
    [/^redirect (\d+) not followed$/, (s) => `redirección ${s} no seguida (no se siguen redirecciones)`],
    [/^no answer within (\d+) ms$/, (ms) => `sin respuesta en ${ms} ms`],
    [/^connection refused$/, () => 'conexión rechazada'],
    [/^connection reset by the receiver$/, () => 'el receptor cortó la conexión'],
    [/^the host name does not resolve$/, () => 'el nombre del servidor no existe (DNS)'],
    [/^the webhook URL is not valid$/, () => 'la URL del webhook no es válida'],
    [/^the webhook URL must be http or https$/, () => 'la URL del webhook debe empezar por http:// o https://'],
    [/^refused destination: (.*)$/, (why) => `destino no permitido (${why})`],
];
export function deliveryError(text) {
    return reword(text, DELIVERY_ERRORS) ?? text;
}
