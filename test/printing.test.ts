import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDecimal, pesos, renderEcfPdf, SHEET_QR_SIDE, type PrintFormat } from '../src/ecf/print/index.ts';
import { ECF_TIPOS, type EcfTipo } from '../src/ecf/ecf-types.ts';
import type { EcfObject } from '../src/ecf/types.ts';
import { validateEcf } from '../src/ecf/validation/validate-ecf.ts';
import { sentAsRfce, timbreUrl } from '../src/ecf/xml/index.ts';
import { itemsOf, sampleEcf, sampleEcfWithItems, SEQUENCE_EXPIRY, type JsonObject } from './fixtures/ecf.ts';
import { PdfTools } from './helpers/pdf-tools.ts';

const tools = new PdfTools();
after(() => tools.close());

const SIGNED_AT = '15-03-2025 10:22:33';
const CODE = 'Ab+3/x';

function stored(body: { ECF: JsonObject }): { tipo: EcfTipo; ecf: EcfObject; montoTotal: string; rncComprador: string | undefined; encf: string } {
  const result = validateEcf(body);
  if (!result.ok) throw new Error(`fixture is invalid: ${JSON.stringify(result.errors)}`);
  const d = result.document;
  return { tipo: d.tipo, ecf: d.ecf, montoTotal: d.MontoTotal, rncComprador: d.RNCComprador, encf: d.eNCF ?? '' };
}

function print(body: { ECF: JsonObject }, format: PrintFormat = 'carta'): { pdf: Buffer; url: string; encf: string } {
  const s = stored(body);
  const url = timbreUrl({
    environment: 'TesteCF', rfce: sentAsRfce(s.tipo, s.montoTotal), rncEmisor: '131880681', rncComprador: s.rncComprador ?? null,
    encf: s.encf, fechaEmision: '15-03-2025', montoTotal: s.montoTotal, fechaFirma: SIGNED_AT, codigoSeguridad: CODE,
  });
  return { pdf: renderEcfPdf({ tipo: s.tipo, ecf: s.ecf, signature: { securityCode: CODE, fechaHoraFirma: SIGNED_AT, timbreUrl: url } }, format), url, encf: s.encf };
}

function assertValid(pdf: Buffer): void {
  const { status, output } = tools.check(pdf);
  assert.equal(status, 0, output);
  assert.match(output, /No syntax or stream encoding errors found/);
}

function pageInfo(pdf: Buffer): { pages: number; width: number; height: number } {
  const info = tools.info(pdf);
  const size = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info);
  return { pages: Number(/Pages:\s+(\d+)/.exec(info)?.[1]), width: Number(size?.[1]), height: Number(size?.[2]) };
}

/** The QR symbol's box in PDF points (origin bottom-left), from the one path filled in black. */
function qrBox(content: string): { left: number; bottom: number; right: number; top: number } {
  const m = /q 0 g\n((?:[\d.]+ [\d.]+ [\d.]+ [\d.]+ re\n)+)f Q/.exec(content);
  assert.ok(m?.[1] !== undefined, 'the page draws a QR code');
  const box = { left: Infinity, bottom: Infinity, right: -Infinity, top: -Infinity };
  for (const line of m[1].trim().split('\n')) {
    const [x, y, w, h] = line.split(' ').map(Number) as [number, number, number, number];
    box.left = Math.min(box.left, x);
    box.bottom = Math.min(box.bottom, y);
    box.right = Math.max(box.right, x + w);
    box.top = Math.max(box.top, y + h);
  }
  return box;
}

describe('amounts', () => {
  test('amounts are written the Dominican way: comma thousands, dot decimals, at least two decimals', () => {
    assert.equal(formatDecimal('1234.5'), '1,234.50');
    assert.equal(formatDecimal('112467.00'), '112,467.00');
    assert.equal(formatDecimal('0'), '0.00');
    assert.equal(formatDecimal('1000000.125'), '1,000,000.125');
    assert.equal(formatDecimal('-950'), '-950.00');
    assert.equal(formatDecimal('1000', 0), '1,000');
    assert.equal(formatDecimal('007.5', 0), '7.5');
    assert.equal(formatDecimal('n/a'), 'n/a');
    assert.equal(pesos('1234.5'), 'RD$ 1,234.50');
  });
});

describe('printed representation', () => {
  test('every format of every type is a PDF qpdf accepts, on the format\'s page size', () => {
    const expected = { carta: [612, 792], a4: [595.28, 841.89] } as const;
    for (const tipo of ECF_TIPOS) {
      for (const format of ['carta', 'a4', 'ticket80'] as const) {
        const { pdf } = print(sampleEcf(tipo), format);
        assertValid(pdf);
        const info = pageInfo(pdf);
        assert.equal(info.pages, 1, `${tipo} ${format}`);
        if (format === 'ticket80') {
          assert.equal(info.width, 226.77);
          assert.ok(info.height > 300 && info.height < 1200, `a receipt as long as its content, not ${info.height}`);
        } else {
          assert.deepEqual([info.width, info.height], expected[format]);
        }
      }
    }
  });

  test('pdftotext finds the type, eNCF, both RNCs, dates, lines, ITBIS, total, security code and signature time, accents intact', () => {
    const { pdf } = print(sampleEcf(31));
    const text = tools.text(pdf, ['-layout']).replace(/\s+/g, ' ');
    for (const needle of [
      'Factura de Crédito Fiscal Electrónica', 'E310000000001', '131880681', '101672919', 'Distribuidora Caribe Digital SRL',
      'Ferretería Ochoa & Asociados SRL', 'Fecha de emisión: 15-03-2025', `Vencimiento de la secuencia: ${SEQUENCE_EXPIRY}`,
      'Instalación y configuración de red', '90,000.00', 'ITBIS 18% RD$ 16,767.00', 'Total RD$ 112,467.00',
      `Código de seguridad: ${CODE}`, `Fecha de firma digital: ${SIGNED_AT}`, 'Página 1 de 1',
    ]) assert.ok(text.includes(needle), `"${needle}" in ${text}`);
  });

  test('a credit note prints the NCF it modifies, and a receipt holds the same facts', () => {
    for (const format of ['carta', 'ticket80'] as const) {
      const text = tools.text(print(sampleEcf(34), format).pdf, ['-layout']).replace(/\s+/g, ' ');
      for (const needle of ['Nota de Crédito Electrónica', 'E340000000001', 'NCF modificado: E310000000001', 'Devolución de mercancía defectuosa', CODE]) {
        assert.ok(text.includes(needle), `${format}: "${needle}" in ${text}`);
      }
    }
  });

  test('the QR code holds exactly the timbre URL, for an e-CF and for a type 32 under RD$250,000 (ConsultaTimbreFC)', () => {
    for (const [tipo, page] of [[31, 'ConsultaTimbre?'], [32, 'ConsultaTimbreFC?']] as const) {
      for (const format of ['carta', 'a4', 'ticket80'] as const) {
        const { pdf, url } = print(sampleEcf(tipo), format);
        assert.ok(url.includes(page), url);
        assert.deepEqual(tools.readQrCodes(pdf), [url], `${tipo} ${format}`);
      }
    }
  });

  test('the QR code is at least 2 cm square on Letter and A4, with a blank quiet zone of four modules', () => {
    for (const format of ['carta', 'a4'] as const) {
      const { pdf } = print(sampleEcf(31), format);
      const box = qrBox(tools.contentStreams(pdf)[0] ?? '');
      const side = box.right - box.left;
      assert.ok(Math.abs(side - SHEET_QR_SIDE) < 0.01, `${side}`);
      assert.ok(Math.abs(box.top - box.bottom - side) < 0.01, 'square');
      assert.ok(side >= 56.7, '2 cm is 56.7 pt');

      const image = tools.render(pdf);
      const { height } = pageInfo(pdf);
      const modules = 4 * (side / 61); // at most version 11 for this URL; a smaller code has larger modules
      const inset = 1;
      let dark = 0;
      for (let x = Math.floor(box.left - modules + inset); x <= Math.ceil(box.right + modules - inset); x++) {
        for (let y = Math.floor(height - box.top - modules + inset); y <= Math.ceil(height - box.bottom + modules - inset); y++) {
          const inside = x >= box.left - inset && x < box.right + inset && y >= height - box.top - inset && y < height - box.bottom + inset;
          if (!inside && image.pixel(x, y) < 200) dark++;
        }
      }
      assert.equal(dark, 0, `${format}: nothing is drawn in the quiet zone`);
    }
  });

  test('300 lines flow over further pages with the column headings again, page numbers, and the totals only on the last page', () => {
    const body = sampleEcfWithItems(31, 300);
    for (const format of ['carta', 'a4', 'ticket80'] as const) {
      const { pdf, url } = print(body, format);
      assertValid(pdf);
      const { pages } = pageInfo(pdf);
      if (format === 'ticket80') {
        assert.equal(pages, 1, 'a 300-line receipt still fits one roll page');
        continue;
      }
      assert.ok(pages >= 5, `${pages} pages`);
      const texts = Array.from({ length: pages }, (_, i) => tools.text(pdf, ['-layout', '-f', String(i + 1), '-l', String(i + 1)]).replace(/\s+/g, ' '));
      texts.forEach((text, i) => {
        assert.ok(text.includes(`Página ${i + 1} de ${pages}`), `page ${i + 1}`);
        assert.ok(text.includes('Precio unitario'), `column headings on page ${i + 1}`);
        assert.equal(text.includes('Código de seguridad'), i === pages - 1, `security code only on the last page (page ${i + 1})`);
        assert.equal(/ Total RD\$ /.test(text), i === pages - 1, `total only on the last page (page ${i + 1})`);
      });
      const all = texts.join(' ');
      for (const n of [1, 150, 300]) assert.ok(all.includes(`#${n} `) || all.endsWith(`#${n}`), `line ${n}`);
      assert.deepEqual(tools.readQrCodes(pdf, pages), [url]);
    }
  });

  test('a long item name is wrapped within its column', () => {
    const name = 'Servicio de mantenimiento preventivo y correctivo de equipos de climatización';
    const body = sampleEcf(31);
    const first = itemsOf(body)[0] as JsonObject;
    first.NombreItem = name;
    first.DescripcionItem = 'Incluye limpieza de serpentines, revisión de gas refrigerante, cambio de filtros y prueba de funcionamiento en cada una de las unidades instaladas en la sucursal.';
    const { pdf } = print(body);
    assertValid(pdf);
    const lines = tools.text(pdf, ['-layout']).split('\n');
    const holding = lines.filter((l) => /Servicio de mantenimiento|climatización/.test(l));
    assert.ok(holding.length >= 2, `the name takes two lines: ${holding.join(' | ')}`);
  });

  test('item names with emoji, control characters and right-to-left text give a valid PDF with replacement characters', () => {
    const s = stored(sampleEcf(31));
    const ecf = structuredClone(s.ecf) as { DetallesItems: { Item: { NombreItem: string; DescripcionItem?: string }[] } };
    const [a, b, c] = ecf.DetallesItems.Item as [{ NombreItem: string; DescripcionItem?: string }, { NombreItem: string }, { NombreItem: string }];
    a.NombreItem = 'Café 😀☕ especial \u{1F1E9}\u{1F1F4}';
    a.DescripcionItem = 'bell\u0007 nul\u0000 esc\u001b tab\there\r\nnext \u202Eevil\u202C zw\u200Bsp';
    b.NombreItem = 'שלום עולם مرحبا بالعالم';
    c.NombreItem = '\uD800 lone surrogate \uFFFF 中文';
    for (const format of ['carta', 'ticket80'] as const) {
      const pdf = renderEcfPdf({ tipo: 31, ecf: ecf as unknown as EcfObject, signature: { securityCode: CODE, fechaHoraFirma: SIGNED_AT, timbreUrl: 'https://ecf.dgii.gov.do/testecf/ConsultaTimbre?x=1' } }, format);
      assertValid(pdf);
      const text = tools.text(pdf);
      assert.match(text, /Café \?+ especial/);
      assert.match(text, /\? \?/, 'RTL letters are replaced');
      assert.ok(!/[\u0000-\u0008\u001b]/.test(text), 'no control characters reach the page');
      assert.ok(text.includes('E310000000001'));
    }
  });

  test('the same document always gives the same bytes', () => {
    assert.deepEqual(print(sampleEcf(31)).pdf, print(sampleEcf(31)).pdf);
  });
});
