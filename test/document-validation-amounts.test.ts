import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ECF_TYPES } from '../src/ecf/validation/index.ts';
import { sampleEcf, sampleEcfWithItems } from './fixtures/ecf.ts';
import { applyChanges, assertError, assertValid, edited } from './fixtures/ecf-assert.ts';

const T = 'ECF.Encabezado.Totales';
const ITEM = 'ECF.DetallesItems.Item';
const PAGO = 'Encabezado.IdDoc.TablaFormasPago.FormaDePago.0.MontoPago';

describe('rule 6: amounts', () => {
  const line = (changes: Record<string, unknown>) =>
    edited(43, Object.fromEntries(Object.entries(changes).map(([k, v]) => [`DetallesItems.Item.0.${k}`, v])));

  it('refuses negative amounts, more than 2 decimals and more than 16 integer digits', () => {
    assertError(line({ MontoItem: '-200.00' }), `${ITEM}[0].MontoItem`);
    assertError(line({ MontoItem: '200.001' }), `${ITEM}[0].MontoItem`, 'at most 2 decimal places');
    assertError(line({ CantidadItem: '2.125' }), `${ITEM}[0].CantidadItem`, 'at most 2 decimal places');
    assertError(line({ MontoItem: '12345678901234567.00' }), `${ITEM}[0].MontoItem`, 'format');
    assertError(line({ CantidadItem: 0 }), `${ITEM}[0].CantidadItem`, 'greater than 0');
  });

  it('refuses text that is not a plain decimal and numbers JSON cannot carry exactly', () => {
    assertError(line({ PrecioUnitarioItem: '1,000.00' }), `${ITEM}[0].PrecioUnitarioItem`, 'decimal number');
    assertError(line({ PrecioUnitarioItem: '1e3' }), `${ITEM}[0].PrecioUnitarioItem`, 'decimal number');
    assertError(line({ PrecioUnitarioItem: Number.POSITIVE_INFINITY }), `${ITEM}[0].PrecioUnitarioItem`, 'finite');
    assertError(line({ PrecioUnitarioItem: 1e21 }), `${ITEM}[0].PrecioUnitarioItem`, 'send it as a string');
    assertError(line({ PrecioUnitarioItem: 1234567890123.4567 }), `${ITEM}[0].PrecioUnitarioItem`, 'significant digits');
  });

  it('follows the XSD where it allows 4 decimals (PrecioUnitarioItem) and negatives (SaldoAnterior)', () => {
    assertValid(line({ PrecioUnitarioItem: '100.0049' }));
    assertError(line({ PrecioUnitarioItem: '100.00491' }), `${ITEM}[0].PrecioUnitarioItem`, 'at most 4 decimal places');
    assertValid(edited(43, { 'Encabezado.Totales.SaldoAnterior': '-50.00', 'Encabezado.Totales.ValorPagar': '300.00' }));
    assertError(edited(43, { 'Encabezado.Totales.SaldoAnterior': '-50.00', 'Encabezado.Totales.ValorPagar': '400.00' }), `${T}.ValorPagar`, 'expected 300.00');
    assertError(edited(43, { 'Encabezado.Totales.MontoTotal': '-350.00' }), `${T}.MontoTotal`);
  });
});

describe('rule 7: ITBIS rates and amounts', () => {
  it('refuses ITBIS rates other than 18, 16 and 0', () => {
    assertError(edited(31, { 'Encabezado.Totales.ITBIS1': 16 }), `${T}.ITBIS1`, 'must be 18');
    assertError(edited(46, { 'Encabezado.Totales.ITBIS3': 18 }), `${T}.ITBIS3`, 'must be 0');
    assertError(edited(31, { 'Encabezado.Totales.ITBIS1': undefined }), `${T}.ITBIS1`, 'missing');
  });

  it('checks TotalITBIS1 = MontoGravadoI1 × 18 % within 0.01', () => {
    assertError(edited(31, { 'Encabezado.Totales.TotalITBIS1': '16767.02' }), `${T}.TotalITBIS1`, 'expected 16767.00');
    assertValid(edited(31, {
      'Encabezado.Totales.TotalITBIS1': '16767.01', 'Encabezado.Totales.TotalITBIS': '16767.01', 'Encabezado.Totales.MontoTotal': '112467.01',
    }));
    assertError(edited(31, { 'Encabezado.Totales.TotalITBIS1': undefined }), `${T}.TotalITBIS1`, 'missing');
  });

  it('checks the 16 % rate on IndicadorFacturacion 2', () => {
    const body = edited(31, {
      'DetallesItems.Item': [{ NumeroLinea: 1, IndicadorFacturacion: 2, NombreItem: 'Yogur natural', IndicadorBienoServicio: 1, CantidadItem: 10, PrecioUnitarioItem: '85.55', MontoItem: '855.50' }],
      'Encabezado.Totales': { MontoGravadoTotal: '855.50', MontoGravadoI2: '855.50', ITBIS2: 16, TotalITBIS: '136.88', TotalITBIS2: '136.88', MontoTotal: '992.38' },
      [PAGO]: '992.38',
    });
    assertValid(body);
    assertError(applyChanges(body, { 'Encabezado.Totales.TotalITBIS2': '137.00' }), `${T}.TotalITBIS2`, 'expected 136.88');
  });

  it('refuses an ITBIS2 rate other than 16', () => {
    const body = (rate: number) => edited(31, {
      'DetallesItems.Item': [{ NumeroLinea: 1, IndicadorFacturacion: 2, NombreItem: 'Yogur natural', IndicadorBienoServicio: 1, CantidadItem: 10, PrecioUnitarioItem: '85.55', MontoItem: '855.50' }],
      'Encabezado.Totales': { MontoGravadoTotal: '855.50', MontoGravadoI2: '855.50', ITBIS2: rate, TotalITBIS: '136.88', TotalITBIS2: '136.88', MontoTotal: '992.38' },
      [PAGO]: '992.38',
    });
    assertError(body(18), `${T}.ITBIS2`, 'must be 16, the ITBIS rate of IndicadorFacturacion 2; got 18');
    assertError(body(0), `${T}.ITBIS2`, 'must be 16');
    assertValid(body(16));
  });

  it('divides the line sum by 1.18 when IndicadorMontoGravado says prices include ITBIS', () => {
    const body = edited(31, {
      'Encabezado.IdDoc.IndicadorMontoGravado': 1,
      'DetallesItems.Item': [{ NumeroLinea: 1, IndicadorFacturacion: 1, NombreItem: 'Cemento gris 42.5 kg', IndicadorBienoServicio: 1, CantidadItem: 4, PrecioUnitarioItem: '590.00', MontoItem: '2360.00' }],
      'Encabezado.Totales': { MontoGravadoTotal: '2000.00', MontoGravadoI1: '2000.00', ITBIS1: 18, TotalITBIS: '360.00', TotalITBIS1: '360.00', MontoTotal: '2360.00' },
      [PAGO]: '2360.00',
    });
    assertValid(body);
    assertError(applyChanges(body, { 'Encabezado.IdDoc.IndicadorMontoGravado': 0 }), `${T}.MontoGravadoI1`, 'expected 2360.00');
  });
});

describe('rule 8: line amounts', () => {
  it('refuses MontoItem ≠ CantidadItem × PrecioUnitarioItem − DescuentoMonto + RecargoMonto', () => {
    assertError(edited(31, { 'DetallesItems.Item.1.MontoItem': '3500.00' }), `${ITEM}[1].MontoItem`, 'computes to 3150.00');
  });

  it('accepts a difference up to 0.01 and counts surcharges', () => {
    assertValid(edited(43, {
      'DetallesItems.Item.0.PrecioUnitarioItem': '100.0049',
      'DetallesItems.Item.0.MontoItem': '200.01',
      'Encabezado.Totales.MontoExento': '350.01',
      'Encabezado.Totales.MontoTotal': '350.01',
    }));
    const withSurcharge = edited(31, {
      'DetallesItems.Item.2.RecargoMonto': '50.00',
      'DetallesItems.Item.2.TablaSubRecargo': { SubRecargo: { TipoSubRecargo: '$', MontoSubRecargo: '50.00' } },
      'DetallesItems.Item.2.MontoItem': '2600.00',
      'Encabezado.Totales.MontoExento': '2600.00',
      'Encabezado.Totales.MontoTotal': '112517.00',
      [PAGO]: '112517.00',
    });
    assertValid(withSurcharge);
    assertError(applyChanges(withSurcharge, { 'DetallesItems.Item.2.MontoItem': '2550.00' }), `${ITEM}[2].MontoItem`, 'computes to 2600.00');
  });

  it('checks MontoItemOtraMoneda against the line in the other currency', () => {
    const otherCurrency = (first: string, second: string) => edited(31, {
      'DetallesItems.Item.0.OtraMonedaDetalle': { PrecioOtraMoneda: '750.00', MontoItemOtraMoneda: first },
      'DetallesItems.Item.1.OtraMonedaDetalle': { PrecioOtraMoneda: '58.33', DescuentoOtraMoneda: '5.83', MontoItemOtraMoneda: second },
    });
    assertValid(otherCurrency('1500.00', '52.50'));
    assertError(otherCurrency('1600.00', '52.50'), `${ITEM}[0].OtraMonedaDetalle.MontoItemOtraMoneda`, 'got 1600.00, the line computes to 1500.00');
    assertError(otherCurrency('1500.00', '58.33'), `${ITEM}[1].OtraMonedaDetalle.MontoItemOtraMoneda`, 'computes to 52.50');
  });

  it('checks RecargoMonto against its TablaSubRecargo breakdown', () => {
    const surcharge = (sub: string) => edited(31, {
      'DetallesItems.Item.2.RecargoMonto': '50.00',
      'DetallesItems.Item.2.TablaSubRecargo': { SubRecargo: { TipoSubRecargo: '$', MontoSubRecargo: sub } },
      'DetallesItems.Item.2.MontoItem': '2600.00',
      'Encabezado.Totales.MontoExento': '2600.00',
      'Encabezado.Totales.MontoTotal': '112517.00',
      [PAGO]: '112517.00',
    });
    assertValid(surcharge('50.00'));
    assertError(surcharge('40.00'), `${ITEM}[2].RecargoMonto`, 'TablaSubRecargo\'s MontoSubRecargo (±0.01); expected 40.00, got 50.00');
  });

  it('checks DescuentoMonto against its TablaSubDescuento breakdown', () => {
    assertError(edited(31, { 'DetallesItems.Item.1.TablaSubDescuento.SubDescuento.0.MontoSubDescuento': '300.00' }), `${ITEM}[1].DescuentoMonto`, 'expected 300.00');
  });
});

describe('rule 9: totals equal the lines', () => {
  it('refuses taxable and exempt totals that differ from their lines', () => {
    assertError(edited(31, { 'Encabezado.Totales.MontoGravadoI1': '93000.00' }), `${T}.MontoGravadoI1`, 'expected 93150.00');
    assertError(edited(31, { 'Encabezado.Totales.MontoExento': '2500.00' }), `${T}.MontoExento`, 'expected 2550.00');
    assertError(edited(31, { 'Encabezado.Totales.MontoExento': undefined }), `${T}.MontoExento`, 'missing');
  });

  it('refuses summary totals that do not add up', () => {
    assertError(edited(31, { 'Encabezado.Totales.MontoGravadoTotal': '93150.50' }), `${T}.MontoGravadoTotal`, 'expected 93150.00');
    assertError(edited(31, { 'Encabezado.Totales.TotalITBIS': '16000.00' }), `${T}.TotalITBIS`, 'expected 16767.00');
    assertError(edited(31, { 'Encabezado.Totales.MontoTotal': '112467.02' }), `${T}.MontoTotal`, 'expected 112467.00');
  });

  it('sums in exact decimals: a 0.01 difference passes even where binary floats exceed it', () => {
    // In binary floating point 0.10 + 0.20 - 0.29 is 0.010000000000000009, just over 0.01.
    const body = (exento: string) => edited(43, {
      'DetallesItems.Item': [
        { NumeroLinea: 1, IndicadorFacturacion: 4, NombreItem: 'Fotocopia', IndicadorBienoServicio: 2, CantidadItem: 1, PrecioUnitarioItem: '0.10', MontoItem: '0.10' },
        { NumeroLinea: 2, IndicadorFacturacion: 4, NombreItem: 'Fotocopia a color', IndicadorBienoServicio: 2, CantidadItem: 1, PrecioUnitarioItem: '0.20', MontoItem: '0.20' },
      ],
      'Encabezado.Totales': { MontoExento: exento, MontoTotal: exento },
    });
    assertValid(body('0.29'));
    assertError(body('0.28'), `${T}.MontoExento`, 'expected 0.30');
  });

  it('applies global discounts to the total of their billing indicator', () => {
    const body = edited(31, {
      DescuentosORecargos: { DescuentoORecargo: { NumeroLinea: 1, TipoAjuste: 'D', TipoValor: '$', MontoDescuentooRecargo: '150.00', IndicadorFacturacionDescuentooRecargo: 1 } },
      'Encabezado.Totales.MontoGravadoI1': '93000.00',
      'Encabezado.Totales.MontoGravadoTotal': '93000.00',
      'Encabezado.Totales.TotalITBIS1': '16740.00',
      'Encabezado.Totales.TotalITBIS': '16740.00',
      'Encabezado.Totales.MontoTotal': '112290.00',
      [PAGO]: '112290.00',
    });
    assertValid(body);
    assertError(applyChanges(body, { 'DescuentosORecargos.DescuentoORecargo.TipoAjuste': 'R' }), `${T}.MontoGravadoI1`, 'expected 93300.00');
  });

  it('includes additional taxes in MontoTotal and checks their sum', () => {
    const body = edited(32, {
      'Encabezado.Totales.MontoImpuestoAdicional': '134.75',
      'Encabezado.Totales.ImpuestosAdicionales': { ImpuestoAdicional: [{ TipoImpuesto: '001', TasaImpuestoAdicional: '10.00', OtrosImpuestosAdicionales: '134.75' }] },
      'Encabezado.Totales.MontoTotal': '2574.74',
      [PAGO]: '2574.74',
    });
    assertValid(body);
    const errors = assertError(applyChanges(body, { 'Encabezado.Totales.MontoImpuestoAdicional': '130.00' }), `${T}.MontoImpuestoAdicional`, 'expected 134.75');
    assert.ok(errors.some((e) => e.path === `${T}.MontoTotal`), 'MontoTotal should be refused too');
  });

  it('adds ISC amounts (codes 006–039) to the 18 % base', () => {
    const isc = (totalItbis1: string, total: string) => edited(32, {
      'Encabezado.Totales.MontoImpuestoAdicional': '100.00',
      'Encabezado.Totales.ImpuestosAdicionales': { ImpuestoAdicional: { TipoImpuesto: '006', TasaImpuestoAdicional: '10.00', MontoImpuestoSelectivoConsumoEspecifico: '100.00' } },
      'Encabezado.Totales.TotalITBIS1': totalItbis1,
      'Encabezado.Totales.TotalITBIS': totalItbis1,
      'Encabezado.Totales.MontoTotal': total,
      [PAGO]: total,
    });
    assertValid(isc('260.54', '2557.99'));
    assertError(isc('242.54', '2539.99'), `${T}.TotalITBIS1`, 'expected 260.54');
  });

  it('checks retention totals against the lines (type 41)', () => {
    assertError(edited(41, { 'Encabezado.Totales.TotalISRRetencion': '1000.00' }), `${T}.TotalISRRetencion`, 'expected 1200.00');
    assertError(edited(41, { 'Encabezado.Totales.TotalITBISRetenido': undefined }), `${T}.TotalITBISRetenido`, 'missing');
  });

  it('totals lines with IndicadorFacturacion 0 in MontoNoFacturable, outside MontoTotal', () => {
    const withNonBillable = (changes: Record<string, unknown>) => edited(31, {
      'DetallesItems.Item.3': { NumeroLinea: 4, IndicadorFacturacion: 0, NombreItem: 'Depósito de envase retornable', IndicadorBienoServicio: 1, CantidadItem: 5, PrecioUnitarioItem: '100.00', MontoItem: '500.00' },
      'Encabezado.Totales.MontoNoFacturable': '500.00',
      ...changes,
    });
    assertValid(withNonBillable({}));
    assertError(withNonBillable({ 'Encabezado.Totales.MontoNoFacturable': '400.00' }), `${T}.MontoNoFacturable`, 'IndicadorFacturacion 0 (no facturable) (±0.01); expected 500.00, got 400.00');
    assertError(withNonBillable({ 'Encabezado.Totales.MontoNoFacturable': undefined }), `${T}.MontoNoFacturable`, 'missing but 1 line(s) have IndicadorFacturacion 0');
    assertError(withNonBillable({ 'Encabezado.Totales.MontoTotal': '112967.00' }), `${T}.MontoTotal`, 'expected 112467.00');
  });

  it('checks MontoPeriodo = MontoTotal + MontoNoFacturable', () => {
    assertValid(edited(31, { 'Encabezado.Totales.MontoPeriodo': '112467.00' }));
    assertError(edited(31, { 'Encabezado.Totales.MontoPeriodo': '112000.00' }), `${T}.MontoPeriodo`, 'expected 112467.00, got 112000.00');
    const withNonBillable = (periodo: string) => edited(31, {
      'DetallesItems.Item.3': { NumeroLinea: 4, IndicadorFacturacion: 0, NombreItem: 'Depósito de envase retornable', IndicadorBienoServicio: 1, CantidadItem: 5, PrecioUnitarioItem: '100.00', MontoItem: '500.00' },
      'Encabezado.Totales.MontoNoFacturable': '500.00',
      'Encabezado.Totales.MontoPeriodo': periodo,
    });
    assertValid(withNonBillable('112967.00'));
    assertError(withNonBillable('112467.00'), `${T}.MontoPeriodo`, 'expected 112967.00');
  });

  it('refuses lines whose IndicadorFacturacion has no total in the type', () => {
    assertError(edited(43, { 'DetallesItems.Item.0.IndicadorFacturacion': 1 }), `${ITEM}[0].IndicadorFacturacion`, 'Totales.MontoGravadoI1');
    assertError(edited(46, { 'DetallesItems.Item.0.IndicadorFacturacion': 4 }), `${ITEM}[0].IndicadorFacturacion`, 'Totales.MontoExento');
  });
});

describe('rule 10: lines', () => {
  it('accepts 1000 lines and refuses 1001', () => {
    assertValid(sampleEcfWithItems(31, 1000));
    assertError(sampleEcfWithItems(31, 1001), ITEM, 'at most 1000');
  });

  it('holds notes 33 and 34 to the service limit of 1000 lines, though their XSDs allow 10000', () => {
    assertValid(sampleEcfWithItems(34, 1000));
    assertError(sampleEcfWithItems(34, 1001), ITEM, 'at most 1000 lines');
    assertError(sampleEcfWithItems(33, 1001), ITEM, 'at most 1000 lines');
  });

  it('refuses duplicate or out-of-range NumeroLinea', () => {
    assertError(edited(31, { 'DetallesItems.Item.2.NumeroLinea': 1 }), `${ITEM}[2].NumeroLinea`, 'already used by Item[0]');
    assertError(edited(31, { 'DetallesItems.Item.2.NumeroLinea': 4 }), `${ITEM}[2].NumeroLinea`, 'greater than the 3 line(s)');
    assertValid(edited(31, { 'DetallesItems.Item.0.NumeroLinea': 2, 'DetallesItems.Item.1.NumeroLinea': 1 }));
  });
});

describe('rule 11: reference for debit and credit notes', () => {
  for (const tipo of [33, 34] as const) {
    it(`type ${tipo} requires InformacionReferencia with its three elements`, () => {
      assert.equal(ECF_TYPES[tipo].requiresReference, true);
      assertError(edited(tipo, { InformacionReferencia: undefined }), 'ECF.InformacionReferencia', 'is required');
      for (const name of ['NCFModificado', 'FechaNCFModificado', 'CodigoModificacion']) {
        assertError(edited(tipo, { [`InformacionReferencia.${name}`]: undefined }), `ECF.InformacionReferencia.${name}`, 'is required');
      }
      assertValid(sampleEcf(tipo));
    });
  }

  it('type 31 does not require it', () => {
    assert.equal(ECF_TYPES[31].requiresReference, false);
    assertValid(edited(31, { InformacionReferencia: undefined }));
  });

  it('type 34 checks IndicadorNotaCredito against the 30-day limit', () => {
    assertError(edited(34, { 'Encabezado.IdDoc.IndicadorNotaCredito': 1 }), 'ECF.Encabezado.IdDoc.IndicadorNotaCredito', 'expected 0');
    assertValid(edited(34, { 'Encabezado.IdDoc.IndicadorNotaCredito': 1, 'InformacionReferencia.FechaNCFModificado': '10-02-2025' }));
  });
});

describe('rule 12: XSD facets', () => {
  const cases: ReadonlyArray<readonly [string, string, unknown, string]> = [
    ['TipoIngresos', 'Encabezado.IdDoc.TipoIngresos', '07', '01, 02, 03'],
    ['TipoIngresos as a number', 'Encabezado.IdDoc.TipoIngresos', 1, 'must be one of'],
    ['TipoPago', 'Encabezado.IdDoc.TipoPago', 4, 'one of: 1, 2, 3'],
    ['IndicadorFacturacion', 'DetallesItems.Item.0.IndicadorFacturacion', 5, 'one of: 0, 1, 2, 3, 4'],
    ['NombreItem length', 'DetallesItems.Item.0.NombreItem', 'x'.repeat(81), 'at most 80 characters'],
    ['empty string', 'Encabezado.Emisor.NombreComercial', '', 'must not be empty'],
    ['CorreoEmisor pattern', 'Encabezado.Emisor.CorreoEmisor', 'facturacion.caribe.do', 'pattern'],
    ['TelefonoEmisor pattern', 'Encabezado.Emisor.TablaTelefonoEmisor.TelefonoEmisor', ['8095550101'], '999-999-9999'],
    ['Municipio code list', 'Encabezado.Emisor.Municipio', '999999', 'codes DGII lists'],
    ['Version', 'Encabezado.Version', '2.0', 'one of: 1.0'],
  ];
  for (const [name, path, value, text] of cases) {
    it(`refuses an invalid ${name}`, () => {
      const errorPath = `ECF.${path.replace(/\.(\d+)(?=\.|$)/g, '[$1]')}${Array.isArray(value) ? '[0]' : ''}`;
      assertError(edited(31, { [path]: value }), errorPath, text);
    });
  }

  it('accepts valid values of the same facets', () => {
    assertValid(edited(31, {
      'Encabezado.IdDoc.TipoIngresos': '06',
      'Encabezado.IdDoc.TipoPago': '2',
      'Encabezado.Emisor.Municipio': '320101',
      'Encabezado.Emisor.CorreoEmisor': 'ventas+rd@caribe-digital.com.do',
      'Encabezado.Emisor.NombreComercial': 'Ñ'.repeat(150),
      'DetallesItems.Item.0.NombreItem': 'x'.repeat(80),
    }));
  });
});

describe('rule 13: text XML can carry', () => {
  it('refuses control characters, U+FFFE and lone surrogates in any text field, with the other problems', () => {
    const errors = assertError(edited(31, {
      'DetallesItems.Item.0.NombreItem': '\ud800x',
      'Encabezado.Emisor.RazonSocialEmisor': 'Caribe\u0001 SRL',
      'Encabezado.Comprador.RazonSocialComprador': 'Cliente \uFFFE',
      'Encabezado.Emisor.RNCEmisor': '12',
    }), `${ITEM}[0].NombreItem`, 'lone UTF-16 surrogate');
    const byPath = new Map(errors.map((e) => [e.path, e.message]));
    assert.match(byPath.get('ECF.Encabezado.Emisor.RazonSocialEmisor') ?? '', /U\+0001/);
    assert.match(byPath.get('ECF.Encabezado.Comprador.RazonSocialComprador') ?? '', /U\+FFFE/);
    assert.ok(byPath.has('ECF.Encabezado.Emisor.RNCEmisor'), 'other problems are still listed');
    assertError(edited(31, { 'Encabezado.Emisor.DireccionEmisor': 'Calle \u001f 1' }), 'ECF.Encabezado.Emisor.DireccionEmisor', 'U+001F');
    assertError(edited(31, { 'DetallesItems.Item.0.NombreItem': 'x\udc00' }), `${ITEM}[0].NombreItem`, '\\uDC00');
  });

  it('accepts tabs, line breaks, accents and characters beyond the BMP (a surrogate pair)', () => {
    assertValid(edited(31, {
      'DetallesItems.Item.0.NombreItem': 'Tornillo\tñandú 😀',
      'Encabezado.Emisor.DireccionEmisor': 'Calle 1\r\nSanto Domingo',
    }));
  });
});
