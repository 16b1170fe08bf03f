// Entry point: validates an e-CF JSON body and returns the normalised document or every problem.
import { ECF_TIPOS, isEcfTipo } from '../ecf-types.ts';
import { createContext } from './rules/context.ts';
import { runRules } from './rules/index.ts';
import { ecfSchema } from '../schema/ecf-schema.ts';
import { isPlainObject, walkStructure } from './structure.ts';
import type { EcfTipo } from '../ecf-types.ts';
import type { EcfDocument, EcfObject, EcfValue, FieldError, ValidationResult } from '../types.ts';

/** Beyond this many problems the list is cut, so a hostile body cannot make a huge response. */
export const MAX_ERRORS = 1000;

const TIPO_PATH = ['ECF', 'Encabezado', 'IdDoc', 'TipoeCF'] as const;

/** Finds TipoeCF first: it selects which XSD and rules apply to everything else. */
function readTipo(body: Record<string, unknown>, report: (e: FieldError) => void): EcfTipo | undefined {
  let node: unknown = body;
  let path = '';
  for (const name of TIPO_PATH) {
    const parent = node as Record<string, unknown>;
    path = path === '' ? name : `${path}.${name}`;
    node = Object.hasOwn(parent, name) ? parent[name] : undefined;
    if (node === undefined) {
      report({ path, message: name === 'TipoeCF' ? 'is required: it selects the rules of the e-CF type' : 'is required' });
      return undefined;
    }
    if (name !== 'TipoeCF' && !isPlainObject(node)) {
      report({ path, message: `must be an object, not ${Array.isArray(node) ? 'an array' : node === null ? 'null' : `a ${typeof node}`}` });
      return undefined;
    }
  }
  const text = typeof node === 'number' || typeof node === 'string' ? String(node) : '';
  const tipo = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
  if (!isEcfTipo(tipo)) {
    report({ path, message: `must be one of ${ECF_TIPOS.join(', ')}` });
    return undefined;
  }
  return tipo;
}

function textAt(ecf: EcfObject, ...names: string[]): string | undefined {
  let node: EcfValue | undefined = ecf;
  for (const name of names) {
    if (typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as EcfObject)[name];
  }
  return typeof node === 'string' ? node : undefined;
}

function requiredText(ecf: EcfObject, ...names: string[]): string {
  const text = textAt(ecf, ...names);
  // Every XSD makes these elements mandatory, so a document without them never gets here.
  if (text === undefined) throw new Error(`validated e-CF lacks ${names.join('.')}`);
  return text;
}

/**
 * A type 32 may leave Comprador out entirely (DGII: its buyer is optional under RD$250,000); the
 * XSD still requires the element, so it is read as empty and the XML carries <Comprador/>.
 * Above the threshold the consumer-250k-buyer rule names the missing children.
 */
function withConsumerBuyer(body: Record<string, unknown>): Record<string, unknown> {
  const ecf = body.ECF as Record<string, unknown>;
  const encabezado = ecf.Encabezado;
  if (!isPlainObject(encabezado) || Object.hasOwn(encabezado, 'Comprador')) return body;
  // Comprador goes where the XSD puts it (after Emisor), as if the client had sent it there.
  const filled: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(encabezado)) {
    filled[k] = v;
    if (k === 'Emisor') filled.Comprador = {};
  }
  if (!Object.hasOwn(filled, 'Comprador')) filled.Comprador = {};
  return { ...body, ECF: { ...ecf, Encabezado: filled } };
}

export function validateEcf(body: unknown): ValidationResult {
  const errors: FieldError[] = [];
  let dropped = 0;
  const report = (error: FieldError): void => {
    if (errors.length < MAX_ERRORS) errors.push(error);
    else dropped++;
  };
  const fail = (): ValidationResult => {
    if (dropped > 0) errors.push({ path: 'ECF', message: `${dropped} more problem(s) not listed; fix these first` });
    return { ok: false, errors };
  };

  if (!isPlainObject(body)) {
    report({ path: '', message: 'the body must be a JSON object of the form {"ECF": {...}}' });
    return fail();
  }
  for (const key of Object.keys(body)) {
    if (key !== 'ECF') report({ path: key, message: 'is not allowed here; the body holds only "ECF"' });
  }
  const tipo = readTipo(body, report);
  if (tipo === undefined) return fail();

  const { ecf, invalid } = walkStructure(tipo === 32 ? withConsumerBuyer(body) : body, ecfSchema(tipo), report);
  if (ecf !== undefined) for (const error of runRules(createContext(tipo, ecf, invalid))) report(error);
  if (errors.length > 0 || ecf === undefined) return fail();

  const document: EcfDocument = {
    tipo,
    eNCF: textAt(ecf, 'Encabezado', 'IdDoc', 'eNCF'),
    RNCEmisor: requiredText(ecf, 'Encabezado', 'Emisor', 'RNCEmisor'),
    RNCComprador: textAt(ecf, 'Encabezado', 'Comprador', 'RNCComprador'),
    FechaEmision: requiredText(ecf, 'Encabezado', 'Emisor', 'FechaEmision'),
    MontoTotal: requiredText(ecf, 'Encabezado', 'Totales', 'MontoTotal'),
    ecf,
  };
  return { ok: true, document };
}
