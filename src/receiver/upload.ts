import { AppError } from '../errors.ts';
import { MultipartError, parseMultipart } from '../dgii/protocol/multipart.ts';
import { XML_FIELD } from '../dgii/protocol/paths.ts';
import { header, type Headers } from '../http/types.ts';

// The XML file of a receiver upload: multipart/form-data with the document in the field
// DGII uses for every upload (`xml`), as senders' software already sends it to DGII.

/** The bytes of the `xml` part; 400 INVALID_REQUEST explaining what is wrong otherwise. */
export function uploadedXml(headers: Headers, body: Buffer, maxBytes: number): Buffer {
  let parts;
  try {
    parts = parseMultipart(header(headers, 'content-type'), body, { maxBodyBytes: maxBytes });
  } catch (err) {
    const detail = err instanceof MultipartError ? err.message : 'unreadable body';
    throw new AppError('INVALID_REQUEST', `La solicitud debe ser multipart/form-data con el archivo en el campo "${XML_FIELD}": ${detail}`);
  }
  // A plain field is taken as well as a file part: some senders post the XML as text.
  const part = parts.find((p) => p.name === XML_FIELD);
  if (part === undefined) throw new AppError('INVALID_REQUEST', `Falta el archivo XML en el campo "${XML_FIELD}"`);
  if (part.data.length === 0) throw new AppError('INVALID_REQUEST', 'El archivo XML está vacío');
  return part.data;
}
