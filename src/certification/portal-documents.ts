import { createHash } from 'node:crypto';
import { validationError } from '../errors.ts';
import { elementChildren, parseXml, textContent, XmlError, type XmlDocument, type XmlElement } from '../xml/index.ts';

// The documents DGII's certification portal hands the taxpayer to sign, recognised by root
// element and structure from an allow-list; anything else is refused (422). The tenant's key
// signs documents this service composed and these alone: each is checked element by element
// (names, nesting, at most one of each, bounded text, no attributes but the XML Schema
// namespace declarations DGII's generator writes, no comments or processing instructions, not
// already signed) and must name the tenant itself, so a signature cannot be obtained on
// anything else with it.
//
// The postulación: the form of "Crear Postulación" in DGII's e-CF portal, downloaded as XML,
// signed by the taxpayer's certificate and uploaded back to the portal (step 1). Its shape is
// that of the file DGII's portal produces (root Postulacion, no namespace). The sworn declaration
// (step 13) is signed inside DGII's Oficina Virtual, not as a file: it is not in the list.

interface Node {
  /** Element name (no namespace). */
  name: string;
  required?: boolean;
  /** A leaf's text: this pattern (the whole text, trimmed). */
  text?: RegExp;
  children?: readonly Node[];
}

const leaf = (name: string, text: RegExp, required = false): Node => ({ name, text, required });
const ANY_TEXT = /^[^<>]{1,250}$/u;
const RNC = /^(\d{9}|\d{11})$/;
const URL_TEXT = /^https:\/\/[^\s<>"]{1,240}$/;

const POSTULACION: Node = {
  name: 'Postulacion',
  children: [
    leaf('PostulacionID', /^[A-Za-z0-9-]{1,40}$/, true),
    leaf('TipoRegistro', /^\d{1,2}$/),
    leaf('GrupoComprobante', /^(\d{2})(,\d{2}){0,19}$/),
    {
      name: 'Contribuyente', required: true,
      children: [
        leaf('RNCContribuyente', RNC, true),
        leaf('RazonSocial', ANY_TEXT, true),
        leaf('NombreComercial', ANY_TEXT),
        leaf('ActividadEconomica', /^[A-Za-z0-9 .-]{1,60}$/),
        leaf('Telefono', /^[0-9 ()+-]{7,20}$/),
        leaf('Direccion', ANY_TEXT),
        leaf('Provincia', ANY_TEXT),
        leaf('Municipio', ANY_TEXT),
        leaf('Sector', ANY_TEXT),
        leaf('CorreoElectronico', /^[^\s@<>]{1,64}@[^\s@<>]{1,185}$/),
      ],
    },
    {
      name: 'Representante',
      children: [leaf('RNCRepresentante', RNC, true), leaf('NombreRepresentante', ANY_TEXT, true)],
    },
    {
      name: 'Software', required: true,
      children: [
        leaf('TipoDesarrollo', /^\d{1,2}$/),
        leaf('NombreSoftware', ANY_TEXT, true),
        leaf('UrlRecepcion', URL_TEXT),
        leaf('UrlAprobacionComercial', URL_TEXT),
        leaf('UrlAutenticacion', URL_TEXT),
        leaf('VersionSoftware', /^[A-Za-z0-9 ._-]{1,40}$/),
        {
          name: 'Proveedor',
          children: [leaf('RNCProveedor', RNC, true), leaf('RazonSocialProveedor', ANY_TEXT, true), leaf('NombreComercialProveedor', ANY_TEXT)],
        },
      ],
    },
    leaf('FechaSolicitud', /^\d{4}-\d{2}-\d{2}(T[0-9:.]{5,20}([+-]\d{2}:\d{2}|Z)?)?$/),
  ],
};

/** The portal documents this service signs: root element → its description and shape. */
export const PORTAL_DOCUMENTS = {
  postulacion: { root: POSTULACION, descripcion: 'Postulación para ser emisor electrónico (paso 1 del portal de certificación)', tenantRnc: ['Contribuyente', 'RNCContribuyente'], referencia: ['PostulacionID'] },
} as const;
export type PortalDocumentKind = keyof typeof PORTAL_DOCUMENTS;

/** What may be handed in: a few KiB in practice. */
export const MAX_PORTAL_DOCUMENT_BYTES = 64 * 1024;
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const XSD = 'http://www.w3.org/2001/XMLSchema';

export interface RecognisedDocument {
  documento: PortalDocumentKind;
  /** The document's own identifier (PostulacionID). */
  referencia: string;
  /** The text as handed in (what gets signed). */
  xml: string;
  sha256: string;
}

function refuse(message: string, path = '$'): never {
  throw validationError([{ path, message }], 'This XML is not a DGII portal document this service signs');
}

function checkElement(el: XmlElement, node: Node, path: string): void {
  if (el.namespaceURI !== '' || el.localName !== node.name) refuse(`expected <${node.name}> in no namespace, found <${el.name}>`, path);
  if (el.attributes.length > 0) refuse(`<${el.name}> carries attributes; DGII's document has none`, path);
  const declarations = el.parent === null ? el.namespaceDeclarations : [];
  if (el.parent !== null && el.namespaceDeclarations.length > 0) refuse(`<${el.name}> declares namespaces`, path);
  for (const d of declarations) {
    if (!((d.prefix === 'xsi' && d.uri === XSI) || (d.prefix === 'xsd' && d.uri === XSD))) refuse(`the namespace declaration xmlns${d.prefix === '' ? '' : `:${d.prefix}`}="${d.uri}" is not one DGII's document carries`, path);
  }
  for (const child of el.children) {
    if (child.kind === 'comment' || child.kind === 'pi') refuse(`<${el.name}> holds a comment or processing instruction`, path);
  }
  if (node.children === undefined) {
    if (elementChildren(el).length > 0) refuse(`<${el.name}> must hold text only`, path);
    const text = textContent(el).trim();
    if (node.text !== undefined && !node.text.test(text)) refuse(`<${el.name}> has a value outside what DGII's portal writes`, path);
    return;
  }
  if (el.children.some((c) => c.kind === 'text' && c.value.trim() !== '')) refuse(`<${el.name}> holds text outside its elements`, path);
  const seen = new Set<string>();
  let position = -1;
  for (const child of elementChildren(el)) {
    if (child.localName === 'Signature') refuse('the document is already signed', `${path}/${child.name}`);
    const index = node.children.findIndex((n) => n.name === child.localName);
    if (index < 0) refuse(`<${child.name}> is not an element of DGII's ${node.name}`, `${path}/${child.name}`);
    if (seen.has(child.localName)) refuse(`<${child.name}> appears more than once`, `${path}/${child.name}`);
    if (index < position) refuse(`<${child.name}> is out of DGII's order`, `${path}/${child.name}`);
    seen.add(child.localName);
    position = index;
    checkElement(child, node.children[index] as Node, `${path}/${child.name}`);
  }
  for (const n of node.children) if (n.required === true && !seen.has(n.name)) refuse(`<${n.name}> is missing`, `${path}/${n.name}`);
}

function textOf(root: XmlElement, path: readonly string[]): string {
  let el: XmlElement | undefined = root;
  for (const name of path) el = el === undefined ? undefined : elementChildren(el).find((c) => c.localName === name);
  return el === undefined ? '' : textContent(el).trim();
}

/** The document recognised, or 422 saying why it is not one this service signs. */
export function recognisePortalDocument(bytes: Buffer, tenantRnc: string): RecognisedDocument {
  if (bytes.length === 0) refuse('the body is empty: send the XML file DGII\'s portal gave you');
  if (bytes.length > MAX_PORTAL_DOCUMENT_BYTES) refuse(`the document is larger than ${MAX_PORTAL_DOCUMENT_BYTES / 1024} KiB`);
  let xml: string;
  try {
    xml = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse('the document is not UTF-8 text');
  }
  let doc: XmlDocument;
  try {
    doc = parseXml(xml, { maxBytes: MAX_PORTAL_DOCUMENT_BYTES, maxDepth: 6, maxNodes: 400, maxAttributes: 4 });
  } catch (err) {
    return refuse(`the document is not well-formed XML: ${err instanceof XmlError ? err.message : 'unreadable'}`);
  }
  if (doc.prolog.length > 0 || doc.epilog.length > 0) refuse('the document carries comments or processing instructions outside its root');
  const entry = Object.entries(PORTAL_DOCUMENTS).find(([, d]) => d.root.name === doc.root.localName);
  if (entry === undefined) refuse(`<${doc.root.name}> is not a DGII portal document this service signs (it signs: ${Object.values(PORTAL_DOCUMENTS).map((d) => d.root.name).join(', ')})`);
  const [kind, spec] = entry;
  checkElement(doc.root, spec.root, `/${spec.root.name}`);
  const rnc = textOf(doc.root, spec.tenantRnc);
  if (rnc !== tenantRnc) refuse(`the document is for the RNC ${rnc}, not this tenant's (${tenantRnc})`, `/${spec.root.name}/${spec.tenantRnc.join('/')}`);
  return { documento: kind as PortalDocumentKind, referencia: textOf(doc.root, spec.referencia), xml, sha256: createHash('sha256').update(bytes).digest('hex') };
}
