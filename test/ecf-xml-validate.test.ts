// In-process XSD validation of DGII XML, held against xmllint: documents both accept, mutated
// documents both refuse (with the path our validator reports), and the few places where the
// service is deliberately stricter than the XSD. Also ties the generated tables to the XSDs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ECF_TIPOS, validateEcf } from '../src/ecf/validation/index.ts';
import { xsdPatternToRegExp } from '../src/ecf/validation/xsd-regex.ts';
import { el, parseXml, serializeXml } from '../src/xml/index.ts';
import {
  buildArecfXml, buildEcfXml, buildRfceXml, documentSchema, DGII_DOCUMENT_KINDS, ecfDocumentSchema, securityCodeOf,
  validateAcecfXml, validateAnecfXml, validateArecfXml, validateEcfXml, validateRfceXml,
} from '../src/ecf/xml/index.ts';
import { sampleEcf, sampleEcfWithItems } from './fixtures/ecf.ts';
import { XmlWorkspace } from './helpers/dgii-xml.ts';
import type { EcfTipo, FieldError, SchemaElement } from '../src/ecf/validation/index.ts';
import type { XmlDocument } from '../src/xml/index.ts';

const FIRMA = '15-03-2025 10:30:00';

type Validator = (doc: XmlDocument) => FieldError[];

interface Case {
  readonly name: string;
  readonly xsd: string;
  readonly validate: Validator;
  readonly xml: string;
  /** For refused documents: a path our validator must report. */
  readonly path?: string;
}

let ws: XmlWorkspace;
const signedEcf = new Map<EcfTipo, string>();
let rfce = '';
let arecf = '';
let acecf = '';
let anecf = '';

function ecfXml(tipo: EcfTipo, body = sampleEcf(tipo)): string {
  const result = validateEcf(body);
  if (!result.ok) throw new Error(`fixture ${tipo} is invalid`);
  return buildEcfXml(tipo, result.document.ecf, FIRMA);
}

/** Replaces the `nth` (0-based) occurrence of `from`, failing loudly when there is none. */
function replace(xml: string, from: string, to: string, nth = 0): string {
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = xml.indexOf(from, at + 1);
    assert.ok(at >= 0, `mutation target ${from} (#${nth}) not found`);
  }
  return `${xml.slice(0, at)}${to}${xml.slice(at + from.length)}`;
}

/** The first <name>…</name> of the document, markup included. */
function elementText(xml: string, name: string): string {
  const start = xml.indexOf(`<${name}>`);
  const end = xml.indexOf(`</${name}>`, start);
  assert.ok(start >= 0 && end > start, `element ${name} not found`);
  return xml.slice(start, end + name.length + 3);
}

function remove(xml: string, name: string): string {
  return replace(xml, elementText(xml, name), '');
}

function signatureOf(xml: string): string {
  return xml.slice(xml.indexOf('<Signature '), xml.lastIndexOf('</Signature>') + '</Signature>'.length);
}

function ecfValidated(xml: string): FieldError[] {
  return validateEcfXml(parseXml(xml));
}

before(() => {
  ws = new XmlWorkspace();
  for (const tipo of ECF_TIPOS) signedEcf.set(tipo, ws.sign(ecfXml(tipo)));
  const result = validateEcf(sampleEcf(32));
  if (!result.ok) throw new Error('fixture 32 is invalid');
  rfce = ws.sign(buildRfceXml(result.document.ecf, securityCodeOf(signedEcf.get(32) ?? '')));
  arecf = ws.sign(buildArecfXml({
    rncEmisor: '131880681', rncComprador: '101672919', encf: 'E310000000001', estado: 1, codigoMotivoNoRecibido: 2,
    fechaHoraAcuseRecibo: new Date('2025-03-15T14:30:05Z'),
  }));
  acecf = serializeXml(el('ACECF', el('DetalleAprobacionComercial',
    el('Version', '1.0'), el('RNCEmisor', '131880681'), el('eNCF', 'E310000000001'), el('FechaEmision', '15-03-2025'),
    el('MontoTotal', '112467.00'), el('RNCComprador', '101672919'), el('Estado', '2'),
    el('DetalleMotivoRechazo', 'Mercancía no recibida'), el('FechaHoraAprobacionComercial', '16-03-2025 09:00:00'))), { declaration: true });
  anecf = ws.sign(serializeXml(el('ANECF',
    el('Encabezado', el('Version', '1.0'), el('RncEmisor', '131880681'), el('CantidadeNCFAnulados', '3'),
      el('FechaHoraAnulacioneNCF', '16-03-2025 09:00:00')),
    el('DetalleAnulacion', el('Anulacion', el('NoLinea', '1'), el('TipoeCF', '31'),
      el('TablaRangoSecuenciasAnuladaseNCF', el('Secuencias', el('SecuenciaeNCFDesde', 'E310000000010'), el('SecuenciaeNCFHasta', 'E310000000012'))),
      el('CantidadeNCFAnulados', '3')))), { declaration: true }));
});
after(() => ws.remove());

const s31 = (): string => signedEcf.get(31) ?? '';
const s32 = (): string => signedEcf.get(32) ?? '';

/** xmllint and our validator on every case, one xmllint run per XSD. */
function verdicts(cases: readonly Case[]): { xmllint: boolean; ours: FieldError[] }[] {
  const byXsd = new Map<string, number[]>();
  cases.forEach((c, i) => byXsd.set(c.xsd, [...(byXsd.get(c.xsd) ?? []), i]));
  const xmllint: boolean[] = new Array<boolean>(cases.length).fill(false);
  for (const [xsd, indexes] of byXsd) {
    ws.xmllint(xsd, indexes.map((i) => (cases[i] as Case).xml)).forEach((ok, k) => { xmllint[indexes[k] as number] = ok; });
  }
  return cases.map((c, i) => ({ xmllint: xmllint[i] as boolean, ours: c.validate(parseXml(c.xml)) }));
}

describe('generated schema tables', () => {
  it('records the Signature slot: required in e-CF, RFCE and ANECF, optional in ARECF and ACECF', () => {
    for (const tipo of ECF_TIPOS) assert.deepEqual(ecfDocumentSchema(tipo).signature, { min: 1, max: 1 });
    assert.deepEqual(documentSchema('RFCE').signature, { min: 1, max: 1 });
    assert.deepEqual(documentSchema('ANECF').signature, { min: 1, max: 1 });
    assert.deepEqual(documentSchema('ARECF').signature, { min: 0, max: 1 });
    assert.deepEqual(documentSchema('ACECF').signature, { min: 0, max: 1 });
  });

  it('defines every simple type its leaves use, and every pattern compiles', () => {
    for (const kind of DGII_DOCUMENT_KINDS) {
      const { root, simpleTypes } = documentSchema(kind);
      const visit = (element: SchemaElement): void => {
        if ('children' in element) element.children.forEach(visit);
        else assert.ok(simpleTypes[element.type] !== undefined, `${kind}: ${element.name} uses undefined ${element.type}`);
      };
      visit(root);
      for (const def of Object.values(simpleTypes)) for (const p of def.patterns ?? []) assert.doesNotThrow(() => xsdPatternToRegExp(p), p);
    }
  });
});

describe('validation of conforming documents', () => {
  it('accepts the ten signed e-CF fixtures, as xmllint does', () => {
    const cases = ECF_TIPOS.map((tipo): Case => ({ name: `e-CF ${tipo}`, xsd: `ecf-${tipo}.xsd`, validate: validateEcfXml, xml: signedEcf.get(tipo) ?? '' }));
    for (const [i, v] of verdicts(cases).entries()) {
      assert.equal(v.xmllint, true, cases[i]?.name);
      assert.deepEqual(v.ours, [], cases[i]?.name);
    }
  });

  it('accepts signed RFCE, ARECF and ANECF and ACECF with or without a signature, as xmllint does', () => {
    const cases: Case[] = [
      { name: 'RFCE', xsd: 'rfce-32.libxml2.xsd', validate: validateRfceXml, xml: rfce },
      { name: 'ARECF signed', xsd: 'arecf.xsd', validate: validateArecfXml, xml: arecf },
      { name: 'ARECF unsigned', xsd: 'arecf.xsd', validate: validateArecfXml, xml: buildArecfXml({
        rncEmisor: '131880681', rncComprador: '101672919', encf: 'E310000000001', estado: 0, fechaHoraAcuseRecibo: new Date(),
      }) },
      { name: 'ACECF unsigned', xsd: 'acecf.libxml2.xsd', validate: validateAcecfXml, xml: acecf },
      { name: 'ACECF signed', xsd: 'acecf.libxml2.xsd', validate: validateAcecfXml, xml: ws.sign(acecf) },
      { name: 'ANECF', xsd: 'anecf.xsd', validate: validateAnecfXml, xml: anecf },
    ];
    for (const [i, v] of verdicts(cases).entries()) {
      assert.equal(v.xmllint, true, cases[i]?.name);
      assert.deepEqual(v.ours, [], cases[i]?.name);
    }
  });

  it('accepts what XML and XSD allow besides the compact form: layout, comments, CDATA, prefixes, numeric spellings', () => {
    const signature = signatureOf(s31());
    const prefixed = signature.replace(/<(\/?)(\w+)/g, '<$1ds:$2').replace('xmlns=', 'xmlns:ds=');
    const cases: Case[] = [
      ['indented', s31().replace(/></g, '>\n  <')],
      ['comments and PIs', replace(replace(s31(), '<IdDoc>', '<IdDoc><!-- nota --><?erp x?>'), '<RazonSocialEmisor>Distribuidora', '<RazonSocialEmisor>Distri<!-- c -->buidora')],
      ['CDATA', replace(s31(), '<NombreItem>Laptop Dell Latitude 5440</NombreItem>', '<NombreItem><![CDATA[Laptop Dell Latitude 5440]]></NombreItem>')],
      ['namespace declarations on the root', replace(s31(), '<ECF>', '<ECF xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">')],
      ['ds-prefixed Signature', replace(s31(), signature, prefixed)],
      ['whitespace around numbers', replace(replace(s31(), '<TipoeCF>31</TipoeCF>', '<TipoeCF> 31 </TipoeCF>'), '<MontoTotal>112467.00</MontoTotal>', '<MontoTotal>\n112467.00\n</MontoTotal>')],
      ['numeric spellings', replace(replace(s31(), '<NumeroLinea>1</NumeroLinea>', '<NumeroLinea>01</NumeroLinea>'), '<MontoTotal>112467.00</MontoTotal>', '<MontoTotal>112467.0</MontoTotal>')],
    ].map(([name, xml]) => ({ name: name as string, xsd: 'ecf-31.xsd', validate: validateEcfXml, xml: xml as string }));
    cases.push({ name: 'largest fixture', xsd: 'ecf-31.xsd', validate: validateEcfXml, xml: ws.sign(ecfXml(31, sampleEcfWithItems(31, 1000))) });
    for (const [i, v] of verdicts(cases).entries()) {
      assert.equal(v.xmllint, true, cases[i]?.name);
      assert.deepEqual(v.ours, [], cases[i]?.name);
    }
  });
});

describe('validation of non-conforming documents', () => {
  const ecf31 = (name: string, xml: () => string, path: string): Case => ({ name, xsd: 'ecf-31.xsd', validate: validateEcfXml, xml: xml(), path });
  const longName = 'N'.repeat(81);

  const mutations = (): Case[] => [
    ecf31('leaves out of order', () => replace(s31(), '<RNCEmisor>131880681</RNCEmisor><RazonSocialEmisor>Distribuidora Caribe Digital SRL</RazonSocialEmisor>',
      '<RazonSocialEmisor>Distribuidora Caribe Digital SRL</RazonSocialEmisor><RNCEmisor>131880681</RNCEmisor>'), 'ECF.Encabezado.Emisor.RNCEmisor'),
    ecf31('groups out of order', () => {
      const detalles = elementText(s31(), 'DetallesItems');
      return replace(replace(s31(), detalles, ''), '<ECF>', `<ECF>${detalles}`);
    }, 'ECF.Encabezado'),
    ecf31('missing required leaf', () => remove(s31(), 'eNCF'), 'ECF.Encabezado.IdDoc.eNCF'),
    ecf31('missing required group', () => remove(s31(), 'Totales'), 'ECF.Encabezado.Totales'),
    ecf31('missing FechaHoraFirma', () => remove(s31(), 'FechaHoraFirma'), 'ECF.FechaHoraFirma'),
    ecf31('missing TipoeCF', () => remove(s31(), 'TipoeCF'), 'ECF.Encabezado.IdDoc.TipoeCF'),
    ecf31('unknown TipoeCF', () => replace(s31(), '<TipoeCF>31</TipoeCF>', '<TipoeCF>35</TipoeCF>'), 'ECF.Encabezado.IdDoc.TipoeCF'),
    ecf31('unknown element', () => replace(s31(), '</TipoeCF>', '</TipoeCF><Serie>E</Serie>'), 'ECF.Encabezado.IdDoc.Serie'),
    ecf31('element of another group', () => replace(s31(), '</RazonSocialEmisor>', '</RazonSocialEmisor><MontoTotal>1.00</MontoTotal>'), 'ECF.Encabezado.Emisor.MontoTotal'),
    ecf31('non-repeatable element twice', () => replace(s31(), '<Version>1.0</Version>', '<Version>1.0</Version><Version>1.0</Version>'), 'ECF.Encabezado.Version'),
    ecf31('too many repetitions', () => replace(s31(), '</TelefonoEmisor></TablaTelefonoEmisor>', '</TelefonoEmisor><TelefonoEmisor>809-555-0103</TelefonoEmisor><TelefonoEmisor>809-555-0104</TelefonoEmisor></TablaTelefonoEmisor>'),
      'ECF.Encabezado.Emisor.TablaTelefonoEmisor.TelefonoEmisor'),
    ecf31('eight payment forms', () => {
      const forma = elementText(s31(), 'FormaDePago');
      return replace(s31(), forma, forma.repeat(8));
    }, 'ECF.Encabezado.IdDoc.TablaFormasPago.FormaDePago'),
    ecf31('RNC of eight digits', () => replace(s31(), '<RNCEmisor>131880681</RNCEmisor>', '<RNCEmisor>13188068</RNCEmisor>'), 'ECF.Encabezado.Emisor.RNCEmisor'),
    ecf31('three decimals in the second item', () => replace(s31(), '<MontoItem>3150.00</MontoItem>', '<MontoItem>3150.005</MontoItem>'),
      'ECF.DetallesItems.Item[1].MontoItem'),
    ecf31('amount that is not a number', () => replace(s31(), '<MontoTotal>112467.00</MontoTotal>', '<MontoTotal>abc</MontoTotal>'), 'ECF.Encabezado.Totales.MontoTotal'),
    ecf31('ISO date', () => replace(s31(), '<FechaEmision>15-03-2025</FechaEmision>', '<FechaEmision>2025-03-15</FechaEmision>'), 'ECF.Encabezado.Emisor.FechaEmision'),
    ecf31('code outside the enumeration', () => replace(s31(), '<IndicadorFacturacion>1</IndicadorFacturacion>', '<IndicadorFacturacion>9</IndicadorFacturacion>'),
      'ECF.DetallesItems.Item[0].IndicadorFacturacion'),
    ecf31('text longer than maxLength', () => replace(s31(), '<NombreItem>Laptop Dell Latitude 5440</NombreItem>', `<NombreItem>${longName}</NombreItem>`),
      'ECF.DetallesItems.Item[0].NombreItem'),
    ecf31('line number zero', () => replace(s31(), '<NumeroLinea>1</NumeroLinea>', '<NumeroLinea>0</NumeroLinea>'), 'ECF.DetallesItems.Item[0].NumeroLinea'),
    ecf31('empty leaf', () => replace(s31(), '<RazonSocialEmisor>Distribuidora Caribe Digital SRL</RazonSocialEmisor>', '<RazonSocialEmisor></RazonSocialEmisor>'),
      'ECF.Encabezado.Emisor.RazonSocialEmisor'),
    ecf31('empty-element tag', () => replace(s31(), '<eNCF>E310000000001</eNCF>', '<eNCF/>'), 'ECF.Encabezado.IdDoc.eNCF'),
    ecf31('group without its required child', () => replace(s31(), elementText(s31(), 'DetallesItems'), '<DetallesItems></DetallesItems>'), 'ECF.DetallesItems.Item'),
    ecf31('two Signatures', () => replace(s31(), '</ECF>', `${signatureOf(s31())}</ECF>`), 'ECF.Signature'),
    ecf31('missing Signature', () => ecfXml(31), 'ECF.Signature'),
    ecf31('Signature before FechaHoraFirma', () => {
      const fecha = elementText(s31(), 'FechaHoraFirma');
      return replace(replace(s31(), fecha, ''), '</ECF>', `${fecha}</ECF>`);
    }, 'ECF.FechaHoraFirma'),
    ecf31('wrong root', () => replace(replace(s31(), '<ECF>', '<Factura>'), '</ECF>', '</Factura>'), 'ECF'),
    ecf31('root in a namespace', () => replace(s31(), '<ECF>', '<ECF xmlns="https://dgii.gov.do/ecf">'), 'ECF'),
    ecf31('attribute on a DGII element', () => replace(s31(), '<eNCF>', '<eNCF tipo="electronico">'), 'ECF.Encabezado.IdDoc.eNCF'),
    ecf31('text where only elements go', () => replace(s31(), '<IdDoc>', '<IdDoc>factura'), 'ECF.Encabezado.IdDoc'),
    ecf31('element inside a leaf', () => replace(s31(), '<eNCF>E310000000001</eNCF>', '<eNCF><b>E310000000001</b></eNCF>'), 'ECF.Encabezado.IdDoc.eNCF'),
    ecf31('DGII name in another namespace', () => replace(s31(), '</RazonSocialEmisor>', '</RazonSocialEmisor><x:NombreComercial xmlns:x="urn:x">Caribe</x:NombreComercial>'),
      'ECF.Encabezado.Emisor.NombreComercial'),
    ecf31('stray text at the root', () => replace(s31(), '<FechaHoraFirma>', 'firmado<FechaHoraFirma>'), 'ECF'),
    { name: 'element another type has', xsd: 'ecf-32.xsd', validate: validateEcfXml, path: 'ECF.Encabezado.IdDoc.FechaVencimientoSecuencia',
      xml: replace(s32(), '</eNCF>', '</eNCF><FechaVencimientoSecuencia>31-12-2026</FechaVencimientoSecuencia>') },
    { name: 'RFCE without CodigoSeguridadeCF', xsd: 'rfce-32.libxml2.xsd', validate: validateRfceXml, xml: remove(rfce, 'CodigoSeguridadeCF'),
      path: 'RFCE.Encabezado.CodigoSeguridadeCF' },
    { name: 'RFCE without Comprador', xsd: 'rfce-32.libxml2.xsd', validate: validateRfceXml, xml: remove(rfce, 'Comprador'), path: 'RFCE.Encabezado.Comprador' },
    { name: 'RFCE amount with one decimal', xsd: 'rfce-32.libxml2.xsd', validate: validateRfceXml,
      xml: replace(rfce, '<MontoTotal>2439.99</MontoTotal>', '<MontoTotal>2439.9</MontoTotal>'), path: 'RFCE.Encabezado.Totales.MontoTotal' },
    { name: 'RFCE with an item', xsd: 'rfce-32.libxml2.xsd', validate: validateRfceXml,
      xml: replace(rfce, '</Encabezado>', '</Encabezado><DetallesItems></DetallesItems>'), path: 'RFCE.DetallesItems' },
    { name: 'RFCE unsigned', xsd: 'rfce-32.libxml2.xsd', validate: validateRfceXml, xml: replace(rfce, signatureOf(rfce), ''), path: 'RFCE.Signature' },
    { name: 'e-CF given as RFCE', xsd: 'rfce-32.libxml2.xsd', validate: validateRfceXml, xml: s32(), path: 'RFCE' },
    { name: 'ARECF Estado 2', xsd: 'arecf.xsd', validate: validateArecfXml, xml: replace(arecf, '<Estado>1</Estado>', '<Estado>2</Estado>'),
      path: 'ARECF.DetalleAcusedeRecibo.Estado' },
    { name: 'ARECF unknown motive', xsd: 'arecf.xsd', validate: validateArecfXml,
      xml: replace(arecf, '<CodigoMotivoNoRecibido>2<', '<CodigoMotivoNoRecibido>5<'), path: 'ARECF.DetalleAcusedeRecibo.CodigoMotivoNoRecibido' },
    { name: 'ARECF motive before Estado', xsd: 'arecf.xsd', validate: validateArecfXml,
      xml: replace(arecf, '<Estado>1</Estado><CodigoMotivoNoRecibido>2</CodigoMotivoNoRecibido>', '<CodigoMotivoNoRecibido>2</CodigoMotivoNoRecibido><Estado>1</Estado>'),
      path: 'ARECF.DetalleAcusedeRecibo.Estado' },
    { name: 'ARECF without its date', xsd: 'arecf.xsd', validate: validateArecfXml, xml: remove(arecf, 'FechaHoraAcuseRecibo'),
      path: 'ARECF.DetalleAcusedeRecibo.FechaHoraAcuseRecibo' },
    { name: 'ARECF with two Signatures', xsd: 'arecf.xsd', validate: validateArecfXml, xml: replace(arecf, '</ARECF>', `${signatureOf(arecf)}</ARECF>`),
      path: 'ARECF.Signature' },
    { name: 'ACECF Estado 0', xsd: 'acecf.libxml2.xsd', validate: validateAcecfXml, xml: replace(acecf, '<Estado>2</Estado>', '<Estado>0</Estado>'),
      path: 'ACECF.DetalleAprobacionComercial.Estado' },
    { name: 'ACECF amount without two decimals', xsd: 'acecf.libxml2.xsd', validate: validateAcecfXml,
      xml: replace(acecf, '<MontoTotal>112467.00</MontoTotal>', '<MontoTotal>112467</MontoTotal>'), path: 'ACECF.DetalleAprobacionComercial.MontoTotal' },
    { name: 'ANECF unsigned', xsd: 'anecf.xsd', validate: validateAnecfXml, xml: replace(anecf, signatureOf(anecf), ''), path: 'ANECF.Signature' },
    { name: 'ANECF with eleven line numbers', xsd: 'anecf.xsd', validate: validateAnecfXml,
      xml: replace(anecf, '<NoLinea>1</NoLinea>', '<NoLinea>1</NoLinea>'.repeat(11)), path: 'ANECF.DetalleAnulacion.Anulacion[0].NoLinea' },
  ];

  it('refuses every mutated document that xmllint refuses, reporting the element at fault', () => {
    const cases = mutations();
    assert.ok(cases.length >= 25);
    for (const [i, v] of verdicts(cases).entries()) {
      const c = cases[i] as Case;
      assert.equal(v.xmllint, false, `xmllint accepted: ${c.name}`);
      assert.ok(v.ours.length > 0, `validator accepted: ${c.name}`);
      assert.ok(v.ours.some((e) => e.path === c.path), `${c.name}: expected an error at ${c.path ?? ''}, got ${JSON.stringify(v.ours)}`);
    }
  });
});

describe('validation messages', () => {
  it('says which element is missing, out of order or unknown', () => {
    const swapped = replace(s31(), '<RNCEmisor>131880681</RNCEmisor><RazonSocialEmisor>Distribuidora Caribe Digital SRL</RazonSocialEmisor>',
      '<RazonSocialEmisor>Distribuidora Caribe Digital SRL</RazonSocialEmisor><RNCEmisor>131880681</RNCEmisor>');
    assert.deepEqual(ecfValidated(swapped), [
      { path: 'ECF.Encabezado.Emisor.RNCEmisor', message: 'is required' },
      { path: 'ECF.Encabezado.Emisor.RNCEmisor', message: 'is out of order: it must come before RazonSocialEmisor' },
    ]);
    const unknown = ecfValidated(replace(s31(), '</TipoeCF>', '</TipoeCF><Serie>E</Serie>'));
    assert.equal(unknown.length, 1);
    assert.equal(unknown[0]?.message, 'is not an element of IdDoc; expected here: eNCF');
    const late = ecfValidated(replace(s31(), '</FechaHoraFirma>', '</FechaHoraFirma><Nota>1</Nota>'));
    assert.deepEqual(late.map((e) => e.message), ['is not an element of ECF; expected here: Signature']);
  });

  it('stops at TipoeCF when it cannot tell the e-CF type, since it selects the schema', () => {
    assert.deepEqual(ecfValidated(replace(s31(), '<TipoeCF>31</TipoeCF>', '<TipoeCF>35</TipoeCF>')), [
      { path: 'ECF.Encabezado.IdDoc.TipoeCF', message: 'must be one of 31, 32, 33, 34, 41, 43, 44, 45, 46, 47' },
    ]);
  });

  it('validates each document against its own type, read from TipoeCF', () => {
    // A type 31 document relabelled 32 breaks the type-32 schema (FechaVencimientoSecuencia), not the type-31 one.
    const relabelled = replace(s31(), '<TipoeCF>31</TipoeCF>', '<TipoeCF>32</TipoeCF>');
    assert.ok(ecfValidated(relabelled).some((e) => e.path === 'ECF.Encabezado.IdDoc.FechaVencimientoSecuencia'));
    assert.deepEqual(ws.xmllint('ecf-32.xsd', [relabelled]), [false]);
  });

  it('lists at most 1000 problems and says how many more there were', () => {
    const xml = ws.sign(ecfXml(31, sampleEcfWithItems(31, 1000))).replace(/<NombreItem>[^<]*<\/NombreItem>/g, '<NombreItem></NombreItem><Extra>1</Extra>');
    const errors = ecfValidated(xml);
    assert.equal(errors.length, 1001);
    assert.deepEqual(errors.at(-1), { path: 'ECF', message: '1000 more problem(s) not listed; fix these first' });
  });
});

describe('where the validator is deliberately stricter than the XSD', () => {
  it('requires the Signature slot to hold an XML-DSig Signature, where xs:any lets anything through', () => {
    const foreign = replace(arecf, signatureOf(arecf), '<Nota>recibido</Nota>');
    assert.deepEqual(ws.xmllint('arecf.xsd', [foreign]), [true]);
    assert.deepEqual(validateArecfXml(parseXml(foreign)).map((e) => e.path), ['ARECF.Nota']);
  });

  it('refuses attributes xmllint tolerates (xsi:*) and applies the e-CF leaf formats: dates that exist, dd-MM-yyyy', () => {
    const located = replace(s31(), '<ECF>', '<ECF xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="ecf-31.xsd">');
    const february31 = replace(s31(), '<FechaEmision>15-03-2025</FechaEmision>', '<FechaEmision>31-02-2025</FechaEmision>');
    assert.deepEqual(ws.xmllint('ecf-31.xsd', [located, february31]), [true, true]);
    assert.deepEqual(ecfValidated(located).map((e) => e.path), ['ECF']);
    assert.deepEqual(ecfValidated(february31).map((e) => e.path), ['ECF.Encabezado.Emisor.FechaEmision']);
  });
});
