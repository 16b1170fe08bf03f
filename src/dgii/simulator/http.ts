import type { IncomingMessage, ServerResponse } from 'node:http';
import { findFilePart, MultipartError, parseMultipart, type MultipartPart } from '../protocol/multipart.ts';
import { XML_FIELD } from '../protocol/paths.ts';

// HTTP plumbing of the simulator: capped body reading, replies, the Bearer token and the
// uploaded XML file. Problems with the request become a Reply (400, 401, 413), never a throw.

export type Reply =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; xml: string }
  | { status: number; html: string };

export class BodyTooLarge extends Error {
  override name = 'BodyTooLarge';
}

export function jsonReply(status: number, json: unknown, headers?: Record<string, string>): Reply {
  return headers === undefined ? { status, json } : { status, json, headers };
}

/** DGII's error bodies carry the explanation in `mensaje`. */
export function errorReply(status: number, mensaje: string, headers?: Record<string, string>): Reply {
  return jsonReply(status, { mensaje }, headers);
}

export const UNAUTHORIZED: Reply = errorReply(401, 'No autorizado: envíe un token válido en el encabezado Authorization (Bearer)', {
  'www-authenticate': 'Bearer',
});

/** Reads the body; throws BodyTooLarge as soon as it is known to exceed `limit`. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  const isXml = 'xml' in reply;
  const isHtml = 'html' in reply;
  const payload = Buffer.from(isXml ? reply.xml : isHtml ? reply.html : JSON.stringify(reply.json), 'utf8');
  res.writeHead(reply.status, {
    'content-type': isXml ? 'application/xml; charset=utf-8' : isHtml ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
    'content-length': String(payload.length),
    'cache-control': 'no-store',
    ...('json' in reply ? reply.headers : {}),
  });
  res.end(payload);
}

/** The token of an `Authorization: Bearer …` header, or null. */
export function bearerToken(req: IncomingMessage): string | null {
  const value = req.headers.authorization;
  if (value === undefined) return null;
  const match = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i.exec(value);
  return match?.[1] ?? null;
}

/** The uploaded `xml` file, or the 400 reply that explains what is wrong with the upload. */
export function uploadedXml(req: IncomingMessage, body: Buffer): { file: MultipartPart } | { reply: Reply } {
  let parts: MultipartPart[];
  try {
    parts = parseMultipart(req.headers['content-type'], body);
  } catch (err) {
    const detail = err instanceof MultipartError ? err.message : 'unreadable body';
    return { reply: errorReply(400, `La solicitud debe ser multipart/form-data con el archivo en el campo "${XML_FIELD}": ${detail}`) };
  }
  const file = findFilePart(parts, XML_FIELD);
  if (file === null) return { reply: errorReply(400, `Falta el archivo XML en el campo "${XML_FIELD}"`) };
  if (file.data.length === 0) return { reply: errorReply(400, 'El archivo XML está vacío') };
  return { file };
}
