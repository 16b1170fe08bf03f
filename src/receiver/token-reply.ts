import { dgiiTokenDate } from '../lib/dates.ts';

// The answer of validacioncertificado: JSON by default, DGII's <RespuestaAutenticacion> XML when the
// request's Accept asks for XML before JSON (Descripción Técnica v1.6, "Respuesta en formato XML").

export interface TokenAnswer {
  token: string;
  expira: Date;
  expedido: Date;
}

/** Whether Accept names an XML type and no JSON type before it (no q-value weighing: DGII's clients send one type). */
export function wantsXml(accept: string | null): boolean {
  const types = (accept ?? '').toLowerCase().split(',').map((t) => t.split(';')[0]?.trim() ?? '');
  const xml = types.findIndex((t) => t === 'application/xml' || t === 'text/xml');
  const json = types.findIndex((t) => t === 'application/json');
  return xml !== -1 && (json === -1 || xml < json);
}

export function tokenJson(a: TokenAnswer): { token: string; expira: string; expedido: string } {
  return { token: a.token, expira: dgiiTokenDate(a.expira), expedido: dgiiTokenDate(a.expedido) };
}

export function tokenXml(a: TokenAnswer): string {
  const j = tokenJson(a);
  // The token is base64url and the dates digits: nothing to escape.
  return `<?xml version="1.0" encoding="utf-8"?>\n<RespuestaAutenticacion><token>${j.token}</token><expira>${j.expira}</expira><expedido>${j.expedido}</expedido></RespuestaAutenticacion>`;
}
