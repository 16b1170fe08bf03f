// Building DGII XML: e-CF, RFCE and ARECF checked by xmllint against DGII's XSDs after signing,
// the security code and timbre URL, and reading a built e-CF back to JSON.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ECF_TIPOS, validateEcf } from '../src/ecf/validation/index.ts';
import { childElement, elementChildren, parseXml, textAt, verifyXml } from '../src/xml/index.ts';
import {
  buildArecfXml, buildEcfXml, buildRfceXml, ecfXmlToObject, formatFechaHoraFirma, securityCode, securityCodeOf, sentAsRfce, timbreUrl,
} from '../src/ecf/xml/index.ts';
import { sampleEcf, sampleEcfWithItems } from './fixtures/ecf.ts';
import { XmlWorkspace } from './helpers/dgii-xml.ts';
import type { EcfObject, EcfTipo, EcfValue } from '../src/ecf/validation/index.ts';
import type { JsonObject } from './fixtures/ecf.ts';

const FIRMA = '15-03-2025 10:30:00';

function normalised(tipo: EcfTipo, body: { ECF: JsonObject } = sampleEcf(tipo)): EcfObject {
  const result = validateEcf(body);
  if (!result.ok) throw new Error(`fixture ${tipo} is invalid: ${JSON.stringify(result.errors)}`);
  return result.document.ecf;
}

/** A copy with one nested group changed; `path` names groups from the ECF content down. */
function edit(ecf: EcfObject, path: readonly string[], change: (group: Record<string, EcfValue | undefined>) => void): EcfObject {
  const copy = structuredClone(ecf) as Record<string, EcfValue | undefined>;
  let group = copy;
  for (const name of path) group = group[name] as Record<string, EcfValue | undefined>;
  change(group);
  return copy;
}

function reverseKeys(value: EcfValue): EcfValue {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return (value as readonly EcfValue[]).map(reverseKeys);
  const entries = Object.entries(value as EcfObject).filter((e): e is [string, EcfValue] => e[1] !== undefined);
  return Object.fromEntries(entries.reverse().map(([k, v]) => [k, reverseKeys(v)]));
}

let ws: XmlWorkspace;
before(() => { ws = new XmlWorkspace(); });
after(() => ws.remove());

describe('formatFechaHoraFirma', () => {
  it('writes Dominican time, four hours behind UTC, as dd-MM-yyyy HH:mm:ss', () => {
    assert.equal(formatFechaHoraFirma(new Date('2025-03-15T14:05:09Z')), '15-03-2025 10:05:09');
  });

  it('uses the same offset in July, since the Republic has no daylight saving', () => {
    assert.equal(formatFechaHoraFirma(new Date('2025-07-01T12:00:00Z')), '01-07-2025 08:00:00');
  });

  it('rolls back to the previous day and year before 04:00 UTC', () => {
    assert.equal(formatFechaHoraFirma(new Date('2025-01-01T03:59:59.999Z')), '31-12-2024 23:59:59');
  });

  it('refuses an invalid Date', () => {
    assert.throws(() => formatFechaHoraFirma(new Date('not a date')), RangeError);
  });
});

describe('buildEcfXml', () => {
  it('builds, for each of the ten types, a document that xmllint accepts against its XSD once signed', () => {
    for (const tipo of ECF_TIPOS) {
      const signed = ws.sign(buildEcfXml(tipo, normalised(tipo), FIRMA));
      assert.deepEqual(ws.xmllint(`ecf-${tipo}.xsd`, [signed]), [true], `type ${tipo}`);
    }
  });

  it('starts with the UTF-8 declaration, writes compactly and ends with FechaHoraFirma', () => {
    const xml = buildEcfXml(31, normalised(31), FIRMA);
    assert.ok(xml.startsWith('<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF>'));
    assert.ok(xml.endsWith(`<FechaHoraFirma>${FIRMA}</FechaHoraFirma></ECF>`));
    assert.doesNotMatch(xml, />\s+</);
    const root = parseXml(xml).root;
    assert.equal(root.namespaceURI, '');
    assert.deepEqual(elementChildren(root).map((e) => e.name), ['Encabezado', 'DetallesItems', 'FechaHoraFirma']);
  });

  it('takes element order from the XSD, not from the order of the JSON keys', () => {
    for (const tipo of [31, 34, 46] as const) {
      const ecf = normalised(tipo);
      assert.equal(buildEcfXml(tipo, reverseKeys(ecf) as EcfObject, FIRMA), buildEcfXml(tipo, ecf, FIRMA));
    }
  });

  it('writes repeatable elements once per array entry', () => {
    const xml = buildEcfXml(31, normalised(31), FIRMA);
    assert.ok(xml.includes('<TablaTelefonoEmisor><TelefonoEmisor>809-555-0101</TelefonoEmisor><TelefonoEmisor>809-555-0102</TelefonoEmisor></TablaTelefonoEmisor>'));
    assert.equal(xml.match(/<Item>/g)?.length, 3);
  });

  it('leaves out empty strings and groups that end up empty, never writing an empty element', () => {
    const ecf = edit(normalised(31), ['Encabezado'], (encabezado) => {
      encabezado.Transporte = {};
      encabezado.InformacionesAdicionales = { NumeroEmbarque: '', PesoBruto: '' };
      (encabezado.Emisor as Record<string, EcfValue>).WebSite = '';
    });
    const withSubtotal = edit(ecf, [], (content) => { content.Subtotales = { Subtotal: [{}, { DescripcionSubtotal: '' }] }; });
    const xml = buildEcfXml(31, withSubtotal, FIRMA);
    for (const name of ['Transporte', 'InformacionesAdicionales', 'NumeroEmbarque', 'WebSite', 'Subtotales', 'Subtotal']) {
      assert.ok(!xml.includes(`<${name}>`), name);
    }
    assert.doesNotMatch(xml, /<(\w+)><\/\1>/);
    assert.equal(xml, buildEcfXml(31, normalised(31), FIRMA));
  });

  it('writes a required group whose children are all optional as an empty element, which the XSD needs', () => {
    const ecf = edit(normalised(32), ['Encabezado'], (encabezado) => { encabezado.Comprador = {}; });
    const xml = buildEcfXml(32, ecf, FIRMA);
    assert.ok(xml.includes('</Emisor><Comprador></Comprador><Totales>'));
    assert.deepEqual(ws.xmllint('ecf-32.xsd', [ws.sign(xml)]), [true]);
  });

  it('builds the largest fixture, 1000 items, into a document xmllint accepts', () => {
    const xml = buildEcfXml(31, normalised(31, sampleEcfWithItems(31, 1000)), FIRMA);
    assert.equal(xml.match(/<Item>/g)?.length, 1000);
    assert.ok(xml.includes('<NumeroLinea>1000</NumeroLinea>'));
    assert.deepEqual(ws.xmllint('ecf-31.xsd', [ws.sign(xml)]), [true]);
  });

  it('escapes markup characters and keeps non-ASCII text as UTF-8', () => {
    const name = 'Ñoño & Cía <S.R.L.>';
    const body = sampleEcf(31, { Encabezado: { Emisor: { RazonSocialEmisor: name }, Comprador: { RazonSocialComprador: `"${name}" 'ñ'` } } });
    const xml = buildEcfXml(31, normalised(31, body), FIRMA);
    assert.ok(xml.includes('<RazonSocialEmisor>Ñoño &amp; Cía &lt;S.R.L.&gt;</RazonSocialEmisor>'));
    const signed = ws.sign(xml);
    assert.deepEqual(ws.xmllint('ecf-31.xsd', [signed]), [true]);
    const root = parseXml(signed).root;
    assert.equal(textAt(root, ['Encabezado', 'Emisor', 'RazonSocialEmisor']), name);
    assert.equal(textAt(root, ['Encabezado', 'Comprador', 'RazonSocialComprador']), `"${name}" 'ñ'`);
  });

  it('refuses a FechaHoraFirma that is not dd-MM-yyyy HH:mm:ss', () => {
    assert.throws(() => buildEcfXml(31, normalised(31), '2025-03-15T10:30:00'), RangeError);
    assert.throws(() => buildEcfXml(31, normalised(31), '32-03-2025 10:30:00'), RangeError);
  });

  it('writes only what the type XSD has, whatever else the object carries', () => {
    const ecf = edit(normalised(32), ['Encabezado', 'IdDoc'], (idDoc) => { idDoc.FechaVencimientoSecuencia = '31-12-2026'; });
    assert.ok(!buildEcfXml(32, ecf, FIRMA).includes('FechaVencimientoSecuencia'));
  });

  it('refuses data whose shape contradicts the schema', () => {
    const repeated = edit(normalised(31), ['Encabezado'], (encabezado) => { encabezado.Version = ['1.0', '1.0']; });
    assert.throws(() => buildEcfXml(31, repeated, FIRMA), TypeError);
    const textForGroup = edit(normalised(31), ['Encabezado'], (encabezado) => { encabezado.Emisor = 'Caribe'; });
    assert.throws(() => buildEcfXml(31, textForGroup, FIRMA), TypeError);
  });
});

describe('ecfXmlToObject', () => {
  it('reads a built e-CF back to the normalised object plus FechaHoraFirma, for all ten types', () => {
    for (const tipo of ECF_TIPOS) {
      const ecf = normalised(tipo);
      const root = parseXml(ws.sign(buildEcfXml(tipo, ecf, FIRMA))).root;
      assert.deepEqual(ecfXmlToObject(root), { ...ecf, FechaHoraFirma: FIRMA }, `type ${tipo}`);
    }
  });

  it('keeps XSD key order and gives repeatable elements as arrays even when they occur once', () => {
    const read = ecfXmlToObject(parseXml(buildEcfXml(32, normalised(32), FIRMA)).root);
    assert.deepEqual(Object.keys(read), ['Encabezado', 'DetallesItems', 'FechaHoraFirma']);
    const idDoc = (read.Encabezado as EcfObject).IdDoc as EcfObject;
    assert.ok(Array.isArray((idDoc.TablaFormasPago as EcfObject).FormaDePago));
    assert.equal(((idDoc.TablaFormasPago as EcfObject).FormaDePago as EcfValue[]).length, 1);
  });

  it('trims whitespace around numeric values, keeps it in text values, and skips the Signature', () => {
    const xml = ws.sign(buildEcfXml(31, normalised(31), FIRMA))
      .replace('<MontoTotal>', '<MontoTotal>\n  ')
      .replace('<RazonSocialEmisor>', '<RazonSocialEmisor> ');
    const read = ecfXmlToObject(parseXml(xml).root);
    const encabezado = read.Encabezado as EcfObject;
    assert.equal((encabezado.Totales as EcfObject).MontoTotal, '112467.00');
    assert.equal((encabezado.Emisor as EcfObject).RazonSocialEmisor, ' Distribuidora Caribe Digital SRL');
    assert.ok(!('Signature' in read));
  });

  it('throws for a root other than ECF and for an unknown TipoeCF', () => {
    assert.throws(() => ecfXmlToObject(parseXml('<RFCE/>').root), RangeError);
    const xml = buildEcfXml(31, normalised(31), FIRMA).replace('<TipoeCF>31</TipoeCF>', '<TipoeCF>35</TipoeCF>');
    assert.throws(() => ecfXmlToObject(parseXml(xml).root), /TipoeCF/);
  });
});

describe('securityCode and timbreUrl', () => {
  it('takes the first six characters of the SignatureValue, Base64 symbols included', () => {
    assert.equal(securityCode('a+/9Zx0Qk1AAAA=='), 'a+/9Zx');
    assert.equal(securityCode('\n  Ab+/\n  cdEF=='), 'Ab+/cd');
  });

  it('refuses values that are too short or not Base64', () => {
    assert.throws(() => securityCode('Ab+/c'), RangeError);
    assert.throws(() => securityCode('Ab-_cdef'), RangeError);
  });

  it('reads the security code of a signed document from its SignatureValue', () => {
    const signed = ws.sign(buildEcfXml(31, normalised(31), FIRMA));
    const verified = verifyXml(signed);
    assert.ok(verified.valid);
    assert.equal(securityCodeOf(signed), verified.signatureValue.slice(0, 6));
    assert.throws(() => securityCodeOf(buildEcfXml(31, normalised(31), FIRMA)), RangeError);
  });

  const base = {
    environment: 'TesteCF' as const,
    rfce: false,
    rncEmisor: '131880681',
    rncComprador: '101672919' as string | null,
    encf: 'E310000000001',
    fechaEmision: '15-03-2025',
    montoTotal: '112467.00',
    fechaFirma: '15-03-2025 10:30:00',
    codigoSeguridad: 'a+/B=c',
  };

  it('builds the ConsultaTimbre URL with every value percent-encoded', () => {
    assert.equal(
      timbreUrl(base),
      'https://ecf.dgii.gov.do/testecf/ConsultaTimbre?RncEmisor=131880681&RncComprador=101672919&ENCF=E310000000001'
        + '&FechaEmision=15-03-2025&MontoTotal=112467.00&FechaFirma=15-03-2025%2010%3A30%3A00&CodigoSeguridad=a%2B%2FB%3Dc',
    );
  });

  it('leaves RncComprador out when the document has none and lower-cases the environment', () => {
    const url = timbreUrl({ ...base, environment: 'CerteCF', rncComprador: null });
    assert.ok(url.startsWith('https://ecf.dgii.gov.do/certecf/ConsultaTimbre?RncEmisor=131880681&ENCF='));
    assert.ok(!url.includes('RncComprador'));
    assert.ok(timbreUrl({ ...base, environment: 'eCF' }).startsWith('https://ecf.dgii.gov.do/ecf/ConsultaTimbre?'));
  });

  it('uses fc.dgii.gov.do/ConsultaTimbreFC with four parameters for an RFCE', () => {
    assert.equal(
      timbreUrl({ ...base, environment: 'eCF', rfce: true, encf: 'E320000000001', montoTotal: '2439.99' }),
      'https://fc.dgii.gov.do/ecf/ConsultaTimbreFC?RncEmisor=131880681&ENCF=E320000000001&MontoTotal=2439.99&CodigoSeguridad=a%2B%2FB%3Dc',
    );
  });
});

describe('buildRfceXml', () => {
  const signed32 = (ecf: EcfObject): string => ws.sign(buildEcfXml(32, ecf, FIRMA));

  it('summarises a signed type 32 into an RFCE that rfce-32.libxml2.xsd accepts once signed', () => {
    const ecf = normalised(32);
    const rfce = ws.sign(buildRfceXml(ecf, securityCodeOf(signed32(ecf))));
    assert.deepEqual(ws.xmllint('rfce-32.libxml2.xsd', [rfce]), [true]);
  });

  it('copies the header fields the RFCE has and ends Encabezado with CodigoSeguridadeCF', () => {
    const ecf = normalised(32);
    const code = securityCodeOf(signed32(ecf));
    const root = parseXml(buildRfceXml(ecf, code)).root;
    assert.equal(root.name, 'RFCE');
    const encabezado = childElement(root, 'Encabezado');
    assert.ok(encabezado !== undefined);
    assert.deepEqual(elementChildren(root).map((e) => e.name), ['Encabezado']);
    assert.deepEqual(elementChildren(encabezado).map((e) => e.name), ['Version', 'IdDoc', 'Emisor', 'Comprador', 'Totales', 'CodigoSeguridadeCF']);
    assert.equal(textAt(encabezado, ['CodigoSeguridadeCF']), code);
    assert.equal(textAt(encabezado, ['IdDoc', 'eNCF']), 'E320000000001');
    assert.equal(textAt(encabezado, ['IdDoc', 'TipoIngresos']), '01');
    assert.deepEqual(elementChildren(childElement(encabezado, 'Emisor') ?? encabezado).map((e) => e.name), ['RNCEmisor', 'RazonSocialEmisor', 'FechaEmision']);
    assert.equal(textAt(encabezado, ['Comprador', 'RNCComprador']), '00114272362');
    assert.equal(textAt(encabezado, ['Totales', 'MontoTotal']), '2439.99');
    assert.equal(textAt(encabezado, ['IdDoc', 'TablaFormasPago', 'FormaDePago', 'MontoPago']), '2439.99');
  });

  it('pads one-decimal amounts to the two decimals the RFCE pattern requires and drops elements it lacks', () => {
    const ecf = edit(normalised(32), ['Encabezado', 'Totales'], (totales) => {
      totales.MontoExento = '850.5';
      totales.MontoImpuestoAdicional = '5.5';
      totales.ImpuestosAdicionales = { ImpuestoAdicional: [{ TipoImpuesto: '002', TasaImpuestoAdicional: '2', OtrosImpuestosAdicionales: '5.5' }] };
      totales.MontoTotal = '2445.5';
    });
    const xml = buildRfceXml(ecf, 'AbC+/=');
    assert.ok(xml.includes('<MontoExento>850.50</MontoExento>'));
    assert.ok(xml.includes('<MontoTotal>2445.50</MontoTotal>'));
    assert.ok(xml.includes('<ImpuestoAdicional><TipoImpuesto>002</TipoImpuesto><OtrosImpuestosAdicionales>5.50</OtrosImpuestosAdicionales></ImpuestoAdicional>'));
    assert.ok(!xml.includes('TasaImpuestoAdicional'));
    assert.ok(xml.includes('<Version>1.0</Version>'));
    assert.deepEqual(ws.xmllint('rfce-32.libxml2.xsd', [ws.sign(xml)]), [true]);
  });

  it('writes an empty Comprador for an anonymous consumer, because the RFCE XSD requires the element', () => {
    const ecf = edit(normalised(32), ['Encabezado'], (encabezado) => { encabezado.Comprador = {}; });
    const xml = buildRfceXml(ecf, 'AbC123');
    assert.ok(xml.includes('</Emisor><Comprador></Comprador><Totales>'));
    assert.deepEqual(ws.xmllint('rfce-32.libxml2.xsd', [ws.sign(xml)]), [true]);
  });

  it('refuses other e-CF types and a security code that is not six characters', () => {
    assert.throws(() => buildRfceXml(normalised(31), 'AbC123'), /type 32/);
    assert.throws(() => buildRfceXml(normalised(32), 'AbC12'), /CodigoSeguridadeCF/);
  });

  it('tells which documents go to DGII as RFCE: type 32 under RD$250,000', () => {
    assert.equal(sentAsRfce(32, '249999.99'), true);
    assert.equal(sentAsRfce(32, '250000'), false);
    assert.equal(sentAsRfce(32, '250000.00'), false);
    assert.equal(sentAsRfce(31, '100.00'), false);
    assert.throws(() => sentAsRfce(32, 'mucho'), RangeError);
  });
});

describe('buildArecfXml', () => {
  const received = {
    rncEmisor: '131880681',
    rncComprador: '101672919',
    encf: 'E310000000001',
    fechaHoraAcuseRecibo: new Date('2025-03-15T14:30:05Z'),
  };

  it('writes an acknowledgement in XSD order that arecf.xsd accepts, signed or not', () => {
    const xml = buildArecfXml({ ...received, estado: 0 });
    assert.equal(xml, '<?xml version="1.0" encoding="utf-8"?><ARECF><DetalleAcusedeRecibo><Version>1.0</Version>'
      + '<RNCEmisor>131880681</RNCEmisor><RNCComprador>101672919</RNCComprador><eNCF>E310000000001</eNCF>'
      + '<Estado>0</Estado><FechaHoraAcuseRecibo>15-03-2025 10:30:05</FechaHoraAcuseRecibo></DetalleAcusedeRecibo></ARECF>');
    assert.deepEqual(ws.xmllint('arecf.xsd', [xml, ws.sign(xml)]), [true, true]);
  });

  it('gives CodigoMotivoNoRecibido, before the date, when the e-CF was not received', () => {
    const xml = buildArecfXml({ ...received, estado: 1, codigoMotivoNoRecibido: 4 });
    assert.ok(xml.includes('<Estado>1</Estado><CodigoMotivoNoRecibido>4</CodigoMotivoNoRecibido><FechaHoraAcuseRecibo>'));
    assert.deepEqual(ws.xmllint('arecf.xsd', [ws.sign(xml)]), [true]);
  });

  it('refuses Estado 1 without a motive, Estado 0 with one, and values the XSD refuses', () => {
    assert.throws(() => buildArecfXml({ ...received, estado: 1 }), RangeError);
    assert.throws(() => buildArecfXml({ ...received, estado: 0, codigoMotivoNoRecibido: 3 }), RangeError);
    assert.throws(() => buildArecfXml({ ...received, estado: 0, rncComprador: '1016729' }), /RNCComprador/);
    assert.throws(() => buildArecfXml({ ...received, estado: 0, encf: 'E31-1' }), /eNCF/);
  });
});
