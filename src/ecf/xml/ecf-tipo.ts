// The e-CF type of an XML document: Encabezado/IdDoc/TipoeCF selects the XSD everything else follows.
import { ECF_TIPOS, isEcfTipo } from '../ecf-types.ts';
import type { EcfTipo } from '../ecf-types.ts';
import type { XmlElement } from '../../xml/index.ts';

export const TIPO_PATH = ['Encabezado', 'IdDoc', 'TipoeCF'] as const;

/** First child element with this name in no namespace (DGII's elements have none). */
export function dgiiChild(parent: XmlElement, name: string): XmlElement | undefined {
  for (const child of parent.children) {
    if (child.kind === 'element' && child.localName === name && child.namespaceURI === '') return child;
  }
  return undefined;
}

export type TipoReading = { readonly tipo: EcfTipo } | { readonly tipo: undefined; readonly problem: string };

export function readEcfTipo(root: XmlElement): TipoReading {
  let node: XmlElement | undefined = root;
  for (const name of TIPO_PATH) node = node === undefined ? undefined : dgiiChild(node, name);
  if (node === undefined) return { tipo: undefined, problem: 'is required: it selects the schema of the e-CF type' };
  // TipoeCF is an xs:integer: surrounding whitespace is collapsed and the value, not the spelling, counts.
  const text = node.children.map((c) => (c.kind === 'text' ? c.value : '')).join('').replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
  const value = /^\+?\d{1,6}$/.test(text) ? Number(text) : Number.NaN;
  return isEcfTipo(value) ? { tipo: value } : { tipo: undefined, problem: `must be one of ${ECF_TIPOS.join(', ')}` };
}
