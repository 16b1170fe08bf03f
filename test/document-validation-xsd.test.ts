// Ties the validator to DGII's XSDs: the generated table matches them, the type table agrees
// with it, the fixtures pass xmllint, and leaf facets give the verdicts libxml2 gives.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ECF_TIPOS, ECF_TYPES, ecfSchema, isGroup, schemaElement, validateEcf } from '../src/ecf/validation/index.ts';
import { SCHEMA_DATA_FILE, XSD_DIR as SCHEMA_XSD_DIR, renderSchemaData } from '../src/ecf/schema/generate.ts';
import { xsdPatternToRegExp } from '../src/ecf/validation/xsd-regex.ts';
import { add, compare, dec, divide, formatDec, mul, negate, parseDecimal, roundHalfUp, sub } from '../src/ecf/decimal.ts';
import { sampleEcf, sampleEcfWithItems } from './fixtures/ecf.ts';
import type { EcfTipo, SchemaElement } from '../src/ecf/validation/index.ts';
import type { JsonObject } from './fixtures/ecf.ts';

const XSD_DIR = SCHEMA_XSD_DIR;

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Serialises a raw JSON body in XSD order, adding the two elements the signer would add. */
function toXml(tipo: EcfTipo, body: { ECF: JsonObject }): string {
  const out: string[] = [];
  const emit = (element: SchemaElement, value: unknown): void => {
    if (value === undefined) return;
    for (const v of Array.isArray(value) && element.max > 1 ? value : [value]) {
      if (!isGroup(element)) {
        out.push(`<${element.name}>${escapeXml(String(v))}</${element.name}>`);
        continue;
      }
      out.push(`<${element.name}>`);
      for (const c of element.children) emit(c, (v as JsonObject)[c.name]);
      out.push(`</${element.name}>`);
    }
  };
  emit(ecfSchema(tipo).root, { ...body.ECF, FechaHoraFirma: '15-03-2025 10:30:00' });
  out.splice(out.length - 1, 0, '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"/>');
  return `<?xml version="1.0" encoding="utf-8"?>\n${out.join('')}`;
}

let dir = '';
let files = 0;
function xmllintAccepts(tipo: EcfTipo, body: { ECF: JsonObject }): { ok: boolean; output: string } {
  const file = join(dir, `doc-${files++}.xml`);
  writeFileSync(file, toXml(tipo, body));
  const run = spawnSync('xmllint', ['--noout', '--schema', join(XSD_DIR, `ecf-${tipo}.xsd`), file], { encoding: 'utf8' });
  return { ok: run.status === 0, output: run.stderr };
}

before(() => { dir = mkdtempSync(join(tmpdir(), 'ecf-xsd-')); });
after(() => { rmSync(dir, { recursive: true, force: true }); });

describe('generated schema table', () => {
  it('is what the generator writes from the XSDs today', () => {
    assert.equal(readFileSync(SCHEMA_DATA_FILE, 'utf8'), renderSchemaData(XSD_DIR), 'run scripts/generate-ecf-schema.ts again');
  });

  it('defines every simple type its leaves use, and every pattern compiles', () => {
    for (const tipo of ECF_TIPOS) {
      const { root, simpleTypes } = ecfSchema(tipo);
      const visit = (element: SchemaElement): void => {
        if (isGroup(element)) element.children.forEach(visit);
        else assert.ok(simpleTypes[element.type] !== undefined, `type ${tipo}: ${element.name} uses undefined ${element.type}`);
      };
      visit(root);
      for (const def of Object.values(simpleTypes)) {
        for (const pattern of def.patterns ?? []) assert.doesNotThrow(() => xsdPatternToRegExp(pattern), pattern);
      }
    }
  });

  it('names no element as Object.prototype names a property (the structure walk reads a missing element as undefined)', () => {
    for (const tipo of ECF_TIPOS) {
      const visit = (element: SchemaElement): void => {
        assert.ok(!(element.name in Object.prototype), `type ${tipo}: ${element.name}`);
        if (isGroup(element)) element.children.forEach(visit);
      };
      visit(ecfSchema(tipo).root);
    }
  });

  it('lists exactly the types of ECF_TYPES in TipoeCFType', () => {
    for (const tipo of ECF_TIPOS) {
      assert.deepEqual(ecfSchema(tipo).simpleTypes.TipoeCFType?.enumeration, ECF_TIPOS.map(String));
    }
  });
});

describe('ECF_TYPES agrees with each XSD', () => {
  for (const tipo of ECF_TIPOS) {
    it(`type ${tipo}: reference, sequence expiry, buyer RNC and line limit`, () => {
      const info = ECF_TYPES[tipo];
      assert.equal(schemaElement(tipo, 'ECF.InformacionReferencia')?.min === 1, info.requiresReference);
      assert.equal(schemaElement(tipo, 'ECF.Encabezado.IdDoc.FechaVencimientoSecuencia') !== undefined, info.sequenceExpires);
      const rnc = schemaElement(tipo, 'ECF.Encabezado.Comprador.RNCComprador');
      const buyer = schemaElement(tipo, 'ECF.Encabezado.Comprador');
      const expected = rnc === undefined ? 'absent' : rnc.min === 1 && buyer?.min === 1 ? 'required' : 'optional';
      assert.equal(info.buyerRnc, expected);
      assert.equal(schemaElement(tipo, 'ECF.DetallesItems.Item')?.max, info.maxItems);
      for (const path of ['ECF.Encabezado.Emisor.RNCEmisor', 'ECF.Encabezado.Emisor.FechaEmision', 'ECF.Encabezado.Totales.MontoTotal']) {
        assert.equal(schemaElement(tipo, path)?.min, 1, `${path} is mandatory, EcfDocument relies on it`);
      }
    });
  }
});

describe('fixtures against the XSD (xmllint)', () => {
  for (const tipo of ECF_TIPOS) {
    it(`sample of type ${tipo} is valid XML for ecf-${tipo}.xsd`, () => {
      const run = xmllintAccepts(tipo, sampleEcf(tipo));
      assert.equal(run.ok, true, run.output);
    });
  }

  it('a 1000-line document is valid XML', () => {
    const run = xmllintAccepts(31, sampleEcfWithItems(31, 1000));
    assert.equal(run.ok, true, run.output);
  });
});

/** [type, path from ECF, value, valid?] — values chosen where XSD semantics are easy to get wrong. */
const FACET_CASES: ReadonlyArray<readonly [EcfTipo, string, unknown, boolean]> = [
  [31, 'Encabezado.Emisor.CorreoEmisor', 'a@b.do', true],
  [31, 'Encabezado.Emisor.CorreoEmisor', 'ñandú.pérez@correo.com.do', true],
  [31, 'Encabezado.Emisor.CorreoEmisor', 'juan_perez@correo.do', false],
  [31, 'Encabezado.Emisor.CorreoEmisor', 'a..b@correo.do', false],
  [31, 'Encabezado.Emisor.CorreoEmisor', 'a@b', false],
  [31, 'Encabezado.Emisor.CorreoEmisor', `${'x'.repeat(75)}@a.do`, true],
  [31, 'Encabezado.Emisor.CorreoEmisor', `${'x'.repeat(76)}@a.do`, false],
  [31, 'Encabezado.IdDoc.TerminoPago', '30 días', true],
  [31, 'Encabezado.IdDoc.TerminoPago', '30-días', false],
  [31, 'Encabezado.IdDoc.TerminoPago', 'x'.repeat(16), false],
  [31, 'Encabezado.Comprador.ResponsablePago', 'Juan Pérez, hijo', true],
  [31, 'Encabezado.Comprador.ResponsablePago', 'Juan 2', false],
  [33, 'Encabezado.Comprador.ResponsablePago', 'Juan', false],
  [33, 'Encabezado.Comprador.ResponsablePago', '^Juan$', true],
  [46, 'Encabezado.Comprador.PaisComprador', 'EE.UU', true],
  [46, 'Encabezado.Comprador.PaisComprador', 'US1', false],
  [46, 'Encabezado.Comprador.PaisComprador', 'Al', false],
  [31, 'Encabezado.InformacionesAdicionales.PesoBruto', '00012.50', true],
  [31, 'Encabezado.InformacionesAdicionales.PesoBruto', 10.5, true],
  [31, 'Encabezado.InformacionesAdicionales.PesoBruto', '10.555', false],
  [31, 'Encabezado.InformacionesAdicionales.PesoBruto', '.5', false],
  [31, 'Encabezado.InformacionesAdicionales.PesoBruto', '5.', false],
  [31, 'Encabezado.InformacionesAdicionales.PesoBruto', '-1', false],
  [31, 'Encabezado.InformacionesAdicionales.PesoBruto', '12345678901234567', false],
  [31, 'Encabezado.InformacionesAdicionales.VolumenBulto', '0', false],
  [31, 'Encabezado.InformacionesAdicionales.VolumenBulto', '0.01', true],
  [31, 'Encabezado.OtraMoneda.TipoCambio', '58.1234', true],
  [31, 'Encabezado.OtraMoneda.TipoCambio', '1234.5', false],
  [31, 'Encabezado.Emisor.NumeroPedidoInterno', '00123', true],
  [31, 'Encabezado.Emisor.NumeroPedidoInterno', '12.0', false],
  [31, 'Encabezado.IdDoc.TotalPaginas', 1, false],
  [31, 'Encabezado.IdDoc.TotalPaginas', 2, true],
  [31, 'Encabezado.Emisor.Municipio', '10101', false],
  [31, 'Encabezado.InformacionesAdicionales.UnidadBulto', 63, false],
  [31, 'Encabezado.InformacionesAdicionales.UnidadBulto', '43', true],
  [33, 'Encabezado.InformacionesAdicionales.UnidadBulto', 43, true],
  [33, 'InformacionReferencia.NCFModificado', 'B010000000', false],
  [33, 'InformacionReferencia.NCFModificado', 'B0100000001', true],
];

function withValue(tipo: EcfTipo, path: string, value: unknown): { ECF: JsonObject } {
  const body = sampleEcf(tipo);
  const names = path.split('.');
  let node = body.ECF;
  for (const name of names.slice(0, -1)) {
    node[name] ??= {};
    node = node[name] as JsonObject;
  }
  node[names.at(-1) as string] = value;
  return body;
}

describe('leaf facets agree with xmllint', () => {
  for (const [tipo, path, value, valid] of FACET_CASES) {
    it(`type ${tipo} ${path} = ${JSON.stringify(value).slice(0, 30)} is ${valid ? 'valid' : 'invalid'}`, () => {
      const body = withValue(tipo, path, value);
      const ours = validateEcf(body);
      assert.equal(ours.ok, valid, JSON.stringify(!ours.ok && ours.errors));
      assert.equal(xmllintAccepts(tipo, body).ok, valid, 'xmllint disagrees');
    });
  }
});

describe('XSD regular expressions', () => {
  it('treats ^ and $ as ordinary characters and anchors the whole value', () => {
    const re = xsdPatternToRegExp('^[a-z]*$');
    assert.equal(re.test('abc'), false);
    assert.equal(re.test('^abc$'), true);
    assert.equal(xsdPatternToRegExp('[0-9]{11}|[0-9]{9}').test('1234567890'), false);
  });

  it('gives \\w, \\d, \\s and . their XSD meaning', () => {
    assert.equal(xsdPatternToRegExp('\\w+').test('ñÁ9'), true);
    assert.equal(xsdPatternToRegExp('\\w').test('_'), false);
    assert.equal(xsdPatternToRegExp('\\w').test('+'), true);
    assert.equal(xsdPatternToRegExp('[\\s\\d]+').test(' 1\t2'), true);
    assert.equal(xsdPatternToRegExp('a.b').test('a\nb'), false);
    assert.equal(xsdPatternToRegExp('(1[012]|0?[1-9])\\-x').test('07-x'), true);
  });
});

describe('decimal arithmetic', () => {
  it('parses only plain decimal text', () => {
    for (const bad of ['', '.', '1e3', '1,5', ' 1', '1.2.3', '+']) assert.equal(parseDecimal(bad), undefined, bad);
    assert.deepEqual(parseDecimal('-0012.50'), { units: -1250, scale: 2 });
    assert.deepEqual(parseDecimal('.5'), { units: 5, scale: 1 });
    // Past 15 digits the units are a BigInt; back within the safe range they are a Number again.
    assert.deepEqual(parseDecimal('12345678901234567.89'), { units: 1234567890123456789n, scale: 2 });
    assert.deepEqual(parseDecimal('0000000000000001.5'), { units: 15, scale: 1 });
  });

  it('stays exact across the safe-integer boundary, falling back to BigInt', () => {
    // 2^53 - 1 and beyond: a Number sum would round here.
    assert.equal(formatDec(add(dec('9007199254740991'), dec('1')), 0), '9007199254740992');
    assert.equal(formatDec(add(dec('9007199254740991'), dec('2')), 0), '9007199254740993');
    assert.equal(formatDec(mul(dec('94906267'), dec('94906267')), 0), '9007199515875289');
    assert.equal(formatDec(add(dec('90071992547409.91'), dec('0.02')), 2), '90071992547409.93');
    assert.equal(compare(dec('9007199254740993'), dec('9007199254740992.9')), 1);
    assert.equal(formatDec(sub(add(dec('9007199254740993'), dec('-9007199254740992')), dec('0.5'))), '0.50');
    assert.equal(formatDec(roundHalfUp(dec('90071992547409.935'), 2)), '90071992547409.94');
    assert.equal(formatDec(divide(dec('9007199254740993'), dec('2'), 1)), '4503599627370496.50');
    assert.equal(formatDec(negate(dec('0'))), '0.00');
  });

  it('rounds half away from zero and divides exactly', () => {
    assert.equal(formatDec(roundHalfUp(dec('2.345'), 2)), '2.35');
    assert.equal(formatDec(roundHalfUp(dec('-2.345'), 2)), '-2.35');
    assert.equal(formatDec(roundHalfUp(dec('2.344999'), 2)), '2.34');
    assert.equal(formatDec(divide(dec('2360.00'), dec('1.18'), 2)), '2000.00');
    assert.equal(formatDec(divide(dec('1'), dec('3'), 4)), '0.3333');
    assert.equal(formatDec(dec('0.05')), '0.05');
  });
});
