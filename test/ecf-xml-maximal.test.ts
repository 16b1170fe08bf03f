// The XML of a "maximal" document of each type (every optional element its XSD offers, amounts
// consistent) is valid against DGII's XSD according to xmllint, once signed; so is the RFCE of
// the maximal type 32. The minimal samples elsewhere leave most of each schema unexercised.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ECF_TIPOS, ecfSchema, validateEcf } from '../src/ecf/validation/index.ts';
import { buildEcfXml, buildRfceXml, securityCodeOf } from '../src/ecf/xml/index.ts';
import { parseXml, textAt } from '../src/xml/index.ts';
import type { EcfObject, EcfTipo } from '../src/ecf/validation/index.ts';
import { documentPaths, maximalEcf, schemaPaths } from './fixtures/ecf-maximal.ts';
import { XmlWorkspace } from './helpers/dgii-xml.ts';

const FIRMA = '15-03-2025 10:30:00';

// Elements a maximal document still leaves out, and why: the service sets FechaHoraFirma itself;
// the lines of types 43 and 47 have a discount and surcharge in the other currency but none in
// pesos, and one without the other would make the two amounts of the line disagree.
const OTHER_CURRENCY_ONLY = ['DetallesItems.Item.OtraMonedaDetalle.DescuentoOtraMoneda', 'DetallesItems.Item.OtraMonedaDetalle.RecargoOtraMoneda'];
const LEFT_OUT: Partial<Record<EcfTipo, readonly string[]>> = { 43: OTHER_CURRENCY_ONLY, 47: OTHER_CURRENCY_ONLY };
// A buyer is identified by RNCComprador or IdentificadorExtranjero, not both: one of them is left out.
const BUYER_IDS = ['Encabezado.Comprador.RNCComprador', 'Encabezado.Comprador.IdentificadorExtranjero'];
const leftOut = (tipo: EcfTipo, path: string, present: Set<string>) => path === 'FechaHoraFirma' || (LEFT_OUT[tipo] ?? []).includes(path)
  || (BUYER_IDS.includes(path) && BUYER_IDS.some((other) => other !== path && present.has(other)));

let ws: XmlWorkspace;
before(() => { ws = new XmlWorkspace(); });
after(() => ws.remove());

function normalised(tipo: EcfTipo): EcfObject {
  const result = validateEcf(maximalEcf(tipo));
  assert.ok(result.ok, `the maximal ${tipo} does not pass the service's validation: ${result.ok ? '' : JSON.stringify(result.errors, null, 1)}`);
  return result.document.ecf;
}

describe('maximal documents', () => {
  for (const tipo of ECF_TIPOS) {
    it(`type ${tipo}: every optional element of its XSD is filled, and xmllint accepts the signed XML`, () => {
      const ecf = normalised(tipo);
      const present = documentPaths(ecf);
      const missing = schemaPaths(ecfSchema(tipo).root).filter((p) => !present.has(p) && !leftOut(tipo, p, present));
      assert.deepEqual(missing, [], 'elements of the XSD the maximal document leaves out');

      const xml = buildEcfXml(tipo, ecf, FIRMA);
      const root = parseXml(xml).root;
      const items = root.children.filter((c) => c.kind === 'element' && c.localName === 'DetallesItems').flatMap((d) => (d.kind === 'element' ? d.children : []));
      assert.ok(items.length >= 3, `${items.length} lines`);
      assert.ok((textAt(root, ['Encabezado', 'Totales', 'MontoTotal']) ?? '') !== '');
      const [valid] = ws.xmllint(`ecf-${tipo}.xsd`, [ws.sign(xml)]);
      assert.equal(valid, true, `xmllint refuses the maximal ${tipo}; see the xmllint output above`);
    });
  }

  it('the RFCE of a maximal type 32 is valid against rfce-32.xsd', () => {
    const ecfXml = ws.sign(buildEcfXml(32, normalised(32), FIRMA));
    const rfce = ws.sign(buildRfceXml(normalised(32), securityCodeOf(ecfXml)));
    assert.deepEqual(ws.xmllint('rfce-32.libxml2.xsd', [rfce]), [true]);
  });

  it('the maximal documents carry the parts the minimal samples lack', () => {
    const xml31 = buildEcfXml(31, normalised(31), FIRMA);
    for (const part of ['<DescuentoMonto>', '<RecargoMonto>', '<TablaSubDescuento>', '<TablaSubRecargo>', '<OtraMonedaDetalle>', '<OtraMoneda>',
      '<TipoMoneda>USD</TipoMoneda>', '<InformacionReferencia>', '<Transporte>', '<DescuentosORecargos>', '<ImpuestosAdicionales>', '<Subtotales>', '<Paginacion>']) {
      assert.ok(xml31.includes(part), `type 31 has ${part}`);
    }
    assert.equal(xml31.match(/<FormaDePago>/g)?.length, 3, 'three payment forms');
    const xml41 = buildEcfXml(41, normalised(41), FIRMA);
    for (const part of ['<Retencion>', '<MontoITBISRetenido>', '<MontoISRRetenido>', '<TotalITBISRetenido>', '<TotalISRRetencion>']) {
      assert.ok(xml41.includes(part), `type 41 has ${part}`);
    }
  });
});
