// Where the JSON accepted from ERPs deliberately differs from the XSD, keyed by element path.
// Everything not listed here follows the XSD's minOccurs exactly.

export type InputPolicy =
  | { readonly kind: 'optional'; readonly why: string }
  | { readonly kind: 'refused'; readonly why: string };

export const INPUT_POLICY: Readonly<Record<string, InputPolicy>> = {
  'ECF.Encabezado.IdDoc.eNCF': {
    kind: 'optional',
    why: 'when omitted the service assigns the next number of the sequence',
  },
  'ECF.Encabezado.IdDoc.FechaVencimientoSecuencia': {
    kind: 'optional',
    why: 'when omitted the service takes it from the registered range the eNCF belongs to (still required for a type that has no range)',
  },
  // Refused rather than ignored: a client sending them expects them to be used, and the
  // service can only produce them itself, at signing time.
  'ECF.FechaHoraFirma': {
    kind: 'refused',
    why: 'is set by the service when it signs the document; do not send it',
  },
  'ECF.Signature': {
    kind: 'refused',
    why: 'is added by the service when it signs the document; do not send it',
  },
};
