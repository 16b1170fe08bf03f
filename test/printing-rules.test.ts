// DGII's rules for the printed e-CF (Informe Técnico e-CF v1.0, section 17; docs/dgii.md), each
// checked on the rendered page with tools that share no code with ours: pdftoppm renders it, the
// QR code is located in the pixels and read back by zbarimg, pdftotext -bbox places the words.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PRINT_MARKS, PRINTED_LEGEND, printMarks, renderEcfPdf, type PrintFormat, type PrintMark } from '../src/ecf/print/index.ts';
import { PLACES, placeName, UNITS, unitAbbreviation } from '../src/ecf/print/dgii-tables.ts';
import { ECF_XSD_SCHEMAS } from '../src/ecf/schema/schemas.data.ts';
import type { EcfTipo } from '../src/ecf/ecf-types.ts';
import type { EcfObject } from '../src/ecf/types.ts';
import { validateEcf } from '../src/ecf/validation/validate-ecf.ts';
import { itemsOf, sampleEcf, sampleEcfWithItems, type JsonObject } from './fixtures/ecf.ts';
import { PdfTools } from './helpers/pdf-tools.ts';
import { findWord, PageMeasure, type Word } from './helpers/page-measure.ts';

const tools = new PdfTools();
const measure = new PageMeasure();
after(() => {
  tools.close();
  measure.close();
});

const CM = 72 / 2.54;
const MM3 = (3 * 72) / 25.4;
const URL = 'https://ecf.dgii.gov.do/testecf/ConsultaTimbre?RncEmisor=131880681&RncComprador=101672919&ENCF=E310000000001&FechaEmision=15-03-2025&MontoTotal=112467.00&FechaFirma=15-03-2025%2010:22:33&CodigoSeguridad=Ab3x9Z';

function stored(body: { ECF: JsonObject }): { tipo: EcfTipo; ecf: EcfObject } {
  const result = validateEcf(body);
  if (!result.ok) throw new Error(`fixture is invalid: ${JSON.stringify(result.errors)}`);
  return { tipo: result.document.tipo, ecf: result.document.ecf };
}

function print(doc: { tipo: EcfTipo; ecf: EcfObject }, format: PrintFormat = 'carta', marks: readonly PrintMark[] = []): Buffer {
  return renderEcfPdf({ ...doc, marks, signature: { securityCode: 'Ab3x9Z', fechaHoraFirma: '15-03-2025 10:22:33', timbreUrl: URL } }, format);
}

function flat(pdf: Buffer, args: string[] = []): string {
  return tools.text(pdf, ['-layout', ...args]).replace(/\s+/g, ' ');
}

function word(words: readonly Word[], text: string): Word {
  const w = findWord(words, text);
  assert.ok(w !== undefined, `"${text}" on the page`);
  return w;
}

describe('DGII code tables', () => {
  test('every province and municipality code of the XSD has its name, 010000 is Distrito Nacional', () => {
    const codes = ECF_XSD_SCHEMAS[31].simpleTypes.ProvinciaMunicipioType?.enumeration ?? [];
    assert.ok(codes.length > 500);
    const unnamed = codes.filter((c) => !Object.hasOwn(PLACES, c));
    assert.deepEqual(unnamed, ['040504'], 'the one code neither transcription of Tabla III has');
    assert.equal(placeName('010000'), 'DISTRITO NACIONAL');
    assert.equal(placeName('250000'), 'SANTIAGO');
    assert.equal(placeName('040504'), '040504', 'an unknown code prints as it is');
    assert.ok(Object.values(PLACES).every((name) => !/^(PROVINCIA|MUNICIPIO) /.test(name)));
  });

  test('every unit of measure code of the XSD has its abbreviation', () => {
    const codes = ECF_XSD_SCHEMAS[31].simpleTypes.UnidadMedidaType?.enumeration ?? [];
    assert.equal(codes.length, 62);
    assert.deepEqual(codes.filter((c) => !Object.hasOwn(UNITS, c)), []);
    assert.equal(unitAbbreviation('43'), 'UND');
    assert.equal(unitAbbreviation('62'), 'OZT');
  });
});

describe('the printed e-CF on a sheet', () => {
  test('the QR code measured on the page is at least 22 mm, at the lower left, 2 cm or more from every edge, with the security code and signature date below it', () => {
    const cases: [string, Buffer, number][] = [];
    for (const format of ['carta', 'a4'] as const) {
      for (const tipo of [31, 32, 34, 46] as const) cases.push([`${tipo} ${format}`, print(stored(sampleEcf(tipo)), format), 1]);
      const long = print(stored(sampleEcfWithItems(31, 120)), format);
      const pages = Number(/Pages:\s+(\d+)/.exec(tools.info(long))?.[1]);
      assert.ok(pages >= 2);
      cases.push([`120 lines ${format}, last page`, long, pages]);
    }
    for (const [name, pdf, page] of cases) {
      const m = measure.measure(pdf, page);
      assert.equal(m.qrText, URL, name);
      const side = m.qr.right - m.qr.left;
      assert.ok(side >= 2.2 * CM - 1, `${name}: ${side} pt is at least 22 mm`);
      for (const [edge, distance] of [['left', m.qr.left], ['top', m.qr.top], ['right', m.width - m.qr.right], ['bottom', m.height - m.qr.bottom]] as const) {
        assert.ok(distance >= 2 * CM, `${name}: ${distance} pt from the ${edge} edge`);
      }
      assert.ok(m.qr.right < m.width / 2 && m.qr.top > m.height / 2, `${name}: lower left`);
      const code = word(m.words, 'Ab3x9Z');
      const signed = word(m.words, '10:22:33');
      for (const w of [code, signed]) {
        assert.ok(w.top - m.qr.bottom >= MM3 - 0.5, `${name}: "${w.text}" below the QR code, past its 3 mm margin`);
        assert.ok(w.top - m.qr.bottom < 40, `${name}: "${w.text}" right under it`);
        assert.ok(w.right > m.qr.left && word(m.words, 'seguridad:').left >= m.qr.left - 1, `${name}: under the QR code, not beside it`);
      }
      assert.ok(flat(pdf, ['-f', String(page), '-l', String(page)]).includes(PRINTED_LEGEND), `${name}: DGII's legend`);
    }
  });

  test('a note prints its modified NCF, its date and the modification code in the header block at the upper right', () => {
    for (const format of ['carta', 'a4'] as const) {
      const m = measure.measure(print(stored(sampleEcf(34)), format));
      const encf = word(m.words, 'E340000000001');
      const modified = word(m.words, 'E310000000001');
      // The note's own FechaEmision is the same day as the modified e-CF's: its date is the one under the modified e-NCF.
      const date = m.words.filter((w) => w.text === '15-03-2025' && w.top > modified.top).sort((a, b) => a.top - b.top)[0];
      assert.ok(date !== undefined, `${format}: the modified e-CF's date under its e-NCF`);
      const code = word(m.words, 'Corrige');
      const buyer = word(m.words, 'Comprador');
      for (const w of [encf, modified, date, code]) {
        assert.ok(w.left > m.width / 2, `${format}: "${w.text}" on the right half`);
        assert.ok(w.bottom < buyer.top, `${format}: "${w.text}" above the buyer, in the header`);
      }
      assert.ok(modified.top > encf.top && date.top > modified.top && code.top > date.top, 'under the e-NCF, in that order');
      const text = flat(print(stored(sampleEcf(34)), format));
      for (const needle of ['NCF modificado: E310000000001', 'Fecha del NCF modificado: 15-03-2025', 'Código de modificación: 3 - Corrige montos del NCF', 'Razón: Devolución de mercancía defectuosa']) {
        assert.ok(text.includes(needle), `${format}: "${needle}" in ${text}`);
      }
    }
  });

  test('the issuer and buyer print province and municipality by name, each line its unit, the payment terms and the discounts', () => {
    const body = sampleEcf(31, {
      Encabezado: {
        Emisor: { Municipio: '250101', Provincia: '250000' },
        Comprador: { MunicipioComprador: '010101', ProvinciaComprador: '010000' },
        IdDoc: { TablaFormasPago: { FormaDePago: [{ FormaPago: 1, MontoPago: '12467.00' }, { FormaPago: 4, MontoPago: '100000.00' }] } },
      },
    });
    const [first, second] = itemsOf(body) as [JsonObject, JsonObject];
    first.UnidadMedida = 43;
    second.UnidadMedida = 19;
    const doc = stored(body);
    // A document-level discount, added after validation: how it prints, not how it adds up.
    (doc.ecf as JsonObject).DescuentosORecargos = { DescuentoORecargo: [{ NumeroLinea: '1', TipoAjuste: 'D', DescripcionDescuentooRecargo: 'Cliente frecuente', TipoValor: '%', ValorDescuentooRecargo: '5.00', MontoDescuentooRecargo: '1234.50' }] };
    for (const format of ['carta', 'a4', 'ticket80'] as const) {
      const text = flat(print(doc, format));
      for (const needle of [
        'Municipio: SANTIAGO', 'Provincia: SANTIAGO', 'Municipio: SANTO DOMINGO DE GUZMÁN (D. M.)', 'Provincia: DISTRITO NACIONAL',
        'Tipo de pago: Crédito', 'Fecha límite de pago: 14-04-2025', 'Término de pago: 30 días',
        'Forma de pago: Efectivo RD$ 12,467.00', 'Forma de pago: Venta a Crédito RD$ 100,000.00',
        'Descuento Cliente frecuente (5.00%)', '-RD$ 1,234.50', '-350.00',
      ]) assert.ok(text.includes(needle), `${format}: "${needle}" in ${text}`);
      assert.ok(!/\b(250101|250000|010000)\b/.test(text), `${format}: codes are spelled out`);
      if (format === 'ticket80') {
        assert.ok(text.includes('2 UND x 45,000.00') && text.includes('1 HOR x 3,500.00'), `units on the receipt: ${text}`);
      } else {
        const lines = tools.text(print(doc, format), ['-layout']).split('\n');
        assert.ok(lines.some((l) => /\bUM\b/.test(l) && /Descripción/.test(l)), 'a UM column');
        assert.ok(lines.some((l) => /^\s*2\s+UND\s+Laptop Dell/.test(l)), `UND on the laptop line: ${lines.join('\n')}`);
        assert.ok(lines.some((l) => /^\s*1\s+HOR\s+Instalación/.test(l) && /-350\.00/.test(l)), 'HOR and the line discount on the installation line');
      }
    }
  });
});

describe('marks of a document without fiscal value', () => {
  test('a rejected document and one of a test environment carry their mark on every page of every format; a production one none', () => {
    assert.deepEqual(printMarks('eCF', false), []);
    assert.deepEqual(printMarks('eCF', true), ['rechazado']);
    assert.deepEqual(printMarks('TesteCF', false), ['prueba']);
    assert.deepEqual(printMarks('CerteCF', true), ['rechazado', 'prueba']);
    const doc = stored(sampleEcfWithItems(31, 120));
    for (const format of ['carta', 'a4', 'ticket80'] as const) {
      for (const marks of [[], ['rechazado'], ['prueba'], ['rechazado', 'prueba']] as PrintMark[][]) {
        const pdf = print(doc, format, marks);
        const pages = Number(/Pages:\s+(\d+)/.exec(tools.info(pdf))?.[1]);
        for (let page = 1; page <= pages; page++) {
          const text = flat(pdf, ['-f', String(page), '-l', String(page)]);
          for (const mark of ['rechazado', 'prueba'] as const) {
            assert.equal(text.includes(PRINT_MARKS[mark]), marks.includes(mark), `${format} page ${page}: ${mark}`);
          }
          assert.ok(!/sin validez fiscal/.test(text) || marks.length > 0);
        }
        assert.deepEqual(tools.readQrCodes(pdf, pages), [URL], `${format}: the QR code still reads`);
      }
    }
  });

  test('the mark is large: its letters are at least twice the body text on a sheet', () => {
    const pdf = print(stored(sampleEcf(31)), 'carta', ['rechazado']);
    const m = measure.measure(pdf);
    const mark = word(m.words, 'RECHAZADO');
    const body = word(m.words, 'Comprador');
    assert.ok(mark.bottom - mark.top >= 2 * (body.bottom - body.top), `${mark.bottom - mark.top} vs ${body.bottom - body.top}`);
    assert.ok(mark.top < word(m.words, 'Distribuidora').top, 'above everything else');
  });
});

describe('the receipt keeps its arrangement', () => {
  test('the ticket centres the QR code at the end, the security code, signature date and legend below it', () => {
    const pdf = print(stored(sampleEcf(32)), 'ticket80');
    const m = measure.measure(pdf);
    assert.equal(m.qrText, URL);
    const centre = (m.qr.left + m.qr.right) / 2;
    assert.ok(Math.abs(centre - m.width / 2) < 2, `centred: ${centre} of ${m.width}`);
    const code = word(m.words, 'Ab3x9Z');
    assert.ok(code.top > m.qr.bottom);
    assert.ok(word(m.words, '10:22:33').top > code.top);
    assert.ok(flat(pdf).includes(PRINTED_LEGEND));
    const total = m.words.filter((w) => w.text === 'Total').at(-1);
    assert.ok(total !== undefined && total.bottom < m.qr.top, 'totals before the QR code');
  });
});
