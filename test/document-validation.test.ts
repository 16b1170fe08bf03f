import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ECF_TIPOS, ECF_TYPES, MAX_ERRORS, validateEcf } from '../src/ecf/validation/index.ts';
import { sampleEcf } from './fixtures/ecf.ts';
import { assertError, assertValid, documentOf, edited, errorsOf } from './fixtures/ecf-assert.ts';
import type { JsonObject } from './fixtures/ecf.ts';

const ITEM = 'ECF.DetallesItems.Item';
const IDDOC = 'ECF.Encabezado.IdDoc';
const EMISOR = 'ECF.Encabezado.Emisor';

describe('fixtures', () => {
  for (const tipo of ECF_TIPOS) {
    it(`sample of type ${tipo} (${ECF_TYPES[tipo].name}) validates`, () => {
      assert.equal(documentOf(sampleEcf(tipo)).tipo, tipo);
    });
  }

  it('document exposes the typed fields of type 31', () => {
    const { tipo, eNCF, RNCEmisor, RNCComprador, FechaEmision, MontoTotal } = documentOf(sampleEcf(31));
    assert.deepEqual({ tipo, eNCF, RNCEmisor, RNCComprador, FechaEmision, MontoTotal }, {
      tipo: 31, eNCF: 'E310000000001', RNCEmisor: '131880681', RNCComprador: '101672919', FechaEmision: '15-03-2025', MontoTotal: '112467.00',
    });
  });

  it('document has no RNCComprador for types 43 and 47', () => {
    for (const tipo of [43, 47] as const) assert.equal(documentOf(sampleEcf(tipo)).RNCComprador, undefined);
  });
});

describe('normalisation', () => {
  it('turns a single Item object into an array and numbers into their text', () => {
    const document = documentOf(edited(43, {
      'DetallesItems.Item': (items: unknown) => (items as JsonObject[])[0],
      'Encabezado.Totales': { MontoExento: '200.00', MontoTotal: 200 },
    }));
    const items = (document.ecf.DetallesItems as JsonObject).Item as JsonObject[];
    assert.equal(items.length, 1);
    assert.equal(items[0]?.CantidadItem, '2');
    assert.equal(items[0]?.IndicadorFacturacion, '4');
    assert.equal(document.MontoTotal, '200');
  });

  it('keeps amounts sent as strings verbatim and maps Version 1 to the XSD literal "1.0"', () => {
    const encabezado = documentOf(edited(31, { 'Encabezado.Version': 1 })).ecf.Encabezado as JsonObject;
    assert.equal(encabezado.Version, '1.0');
    assert.equal((encabezado.Totales as JsonObject).MontoTotal, '112467.00');
  });

  it('spells numeric codes as the XSD literal so "01" counts as IndicadorFacturacion 1', () => {
    const document = documentOf(edited(31, { 'DetallesItems.Item.0.IndicadorFacturacion': '01', 'Encabezado.IdDoc.TipoPago': '002' }));
    const items = (document.ecf.DetallesItems as JsonObject).Item as JsonObject[];
    assert.equal(items[0]?.IndicadorFacturacion, '1');
    assert.equal(((document.ecf.Encabezado as JsonObject).IdDoc as JsonObject).TipoPago, '2');
  });

  it('orders keys as the XSD sequence', () => {
    const document = documentOf(edited(31, {
      Encabezado: (e: unknown) => {
        const { Emisor, Totales, IdDoc, Comprador, Version } = e as JsonObject;
        return { Totales, Comprador, Emisor, IdDoc, Version };
      },
    }));
    assert.deepEqual(Object.keys(document.ecf.Encabezado as JsonObject), ['Version', 'IdDoc', 'Emisor', 'Comprador', 'Totales']);
  });
});

describe('rule 1: sections, required leaves, unknown keys, JSON types', () => {
  it('refuses a missing required section and accepts it present', () => {
    assertError(edited(31, { 'Encabezado.Totales': undefined }), 'ECF.Encabezado.Totales', 'is required');
    assertError(edited(31, { DetallesItems: undefined }), 'ECF.DetallesItems', 'is required');
    assertValid(sampleEcf(31));
  });

  it('refuses a missing required leaf', () => {
    assertError(edited(31, { 'Encabezado.Emisor.RazonSocialEmisor': undefined }), `${EMISOR}.RazonSocialEmisor`, 'is required');
    assertError(edited(31, { 'DetallesItems.Item.1.NombreItem': undefined }), `${ITEM}[1].NombreItem`, 'is required');
  });

  it('applies minOccurs by type: RNCComprador required in 31, optional in 32, Comprador itself optional in 32', () => {
    assertError(edited(31, { 'Encabezado.Comprador.RNCComprador': undefined }), 'ECF.Encabezado.Comprador.RNCComprador', 'is required');
    assertValid(edited(32, { 'Encabezado.Comprador.RNCComprador': undefined }));
    // The type 32 XSD requires the Comprador element although all its children are optional.
    assertValid(edited(32, { 'Encabezado.Comprador': {} }));
    // ...but a type 32 may leave Comprador out of the JSON: it is read as empty (issue 29).
    assertValid(edited(32, { 'Encabezado.Comprador': undefined }));
    assertValid(edited(33, { 'Encabezado.Comprador': undefined }));
  });

  it('leaves FechaVencimientoSecuencia to numbering where the XSD has it, and keeps it unknown where it has not', () => {
    // Emit fills it from the authorised range it numbers from, and requires it only when no range
    // is registered (test/sequences.test.ts).
    assertValid(edited(31, { 'Encabezado.IdDoc.FechaVencimientoSecuencia': undefined }));
    assertError(edited(32, { 'Encabezado.IdDoc.FechaVencimientoSecuencia': '31-12-2026' }), `${IDDOC}.FechaVencimientoSecuencia`, 'valid names here');
  });

  it('refuses unknown keys and lists the valid names of that level', () => {
    const errors = assertError(edited(31, { 'Encabezado.Emisor.Telefono': '809-555-0101' }), `${EMISOR}.Telefono`, 'valid names here');
    assert.match(errors[0]?.message ?? '', /RNCEmisor, RazonSocialEmisor/);
    assertError(edited(43, { 'Encabezado.Comprador': { RazonSocialComprador: 'X' } }), 'ECF.Encabezado.Comprador', 'valid names here');
    assertError({ ...sampleEcf(31), extra: 1 }, 'extra', 'only "ECF"');
  });

  it('refuses wrong JSON types', () => {
    assertError(edited(31, { 'Encabezado.Emisor': 'Distribuidora' }), EMISOR, 'must be an object');
    assertError(edited(31, { 'Encabezado.Totales.MontoTotal': true }), 'ECF.Encabezado.Totales.MontoTotal', 'not a boolean');
    assertError(edited(31, { 'Encabezado.Emisor.RNCEmisor': 131880681 }), `${EMISOR}.RNCEmisor`, 'must be a JSON string');
    assertError(edited(31, { 'Encabezado.Emisor.RazonSocialEmisor': null }), `${EMISOR}.RazonSocialEmisor`, 'must not be null');
    assertError(edited(31, { 'Encabezado.IdDoc': (v: unknown) => [v] }), IDDOC, 'not an array');
    assertError(edited(31, { 'DetallesItems.Item': (v: unknown) => [v] }), `${ITEM}[0]`, 'must be an object');
  });

  it('lets eNCF be omitted, leaving numbering to the service', () => {
    assert.equal(documentOf(edited(31, { 'Encabezado.IdDoc.eNCF': undefined })).eNCF, undefined);
  });

  it('refuses FechaHoraFirma and Signature, which the service adds when signing', () => {
    assertError(edited(31, { FechaHoraFirma: '15-03-2025 10:00:00' }), 'ECF.FechaHoraFirma', 'set by the service');
    assertError(edited(31, { Signature: {} }), 'ECF.Signature', 'added by the service');
  });

  it('checks occurrences of repeating elements and accepts a single value', () => {
    const phones = 'Encabezado.Emisor.TablaTelefonoEmisor.TelefonoEmisor';
    assertError(edited(31, { [phones]: ['809-555-0101', '809-555-0102', '809-555-0103', '809-555-0104'] }), `ECF.${phones}`, 'at most 3');
    assertError(edited(31, { 'DetallesItems.Item': [] }), ITEM, 'at least 1');
    assertValid(edited(31, { [phones]: '809-555-0101' }));
  });
});

describe('rule 2: TipoeCF', () => {
  it('refuses codes outside the 10 types', () => {
    for (const bad of [30, 42, '3l', null, 31.5]) {
      const errors = assertError(edited(31, { 'Encabezado.IdDoc.TipoeCF': bad }), `${IDDOC}.TipoeCF`, 'must be one of 31, 32');
      assert.equal(errors.length, 1);
    }
    assertError(edited(31, { 'Encabezado.IdDoc.TipoeCF': undefined }), `${IDDOC}.TipoeCF`, 'is required');
  });

  it('accepts the code as a number or a numeric string', () => {
    assertValid(edited(31, { 'Encabezado.IdDoc.TipoeCF': '31' }));
    assertValid(edited(31, { 'Encabezado.IdDoc.TipoeCF': 31 }));
  });
});

describe('rule 3: eNCF', () => {
  it('refuses values that are not E + 2-digit type + 10 digits', () => {
    for (const bad of ['E31000000001', 'B0100000001', 'e310000000001', 'E31000000000A', 'E3100000000012']) {
      assertError(edited(31, { 'Encabezado.IdDoc.eNCF': bad }), `${IDDOC}.eNCF`);
    }
  });

  it('refuses an eNCF of another type and accepts the matching one', () => {
    assertError(edited(31, { 'Encabezado.IdDoc.eNCF': 'E320000000001' }), `${IDDOC}.eNCF`, 'is type 32, TipoeCF is 31');
    assertValid(edited(31, { 'Encabezado.IdDoc.eNCF': 'E319999999999' }));
  });
});

describe('rule 4: RNC and cédula', () => {
  it('refuses anything but 9 or 11 digits', () => {
    for (const bad of ['13188068', '1318806811', '131-88068-1', '13188068A', '001142723600', '']) {
      assertError(edited(31, { 'Encabezado.Emisor.RNCEmisor': bad }), `${EMISOR}.RNCEmisor`);
    }
    assertError(edited(33, { 'InformacionReferencia.RNCOtroContribuyente': '12345' }), 'ECF.InformacionReferencia.RNCOtroContribuyente', '9 digits');
  });

  it('accepts an RNC and a cédula', () => {
    assertValid(edited(31, { 'Encabezado.Comprador.RNCComprador': '40223456787' }));
    assertValid(edited(33, { 'InformacionReferencia.RNCOtroContribuyente': '130458715' }));
  });
});

describe('rule 5: dates', () => {
  const withDate = (date: string) => edited(31, { 'Encabezado.Comprador.FechaEntrega': date });

  it('refuses dates that do not exist or are not dd-MM-yyyy', () => {
    for (const bad of ['31-02-2025', '29-02-2025', '29-02-1900', '31-04-2025', '00-01-2025', '15-13-2025', '2025-03-15', '5-3-2025', '15/03/2025', '15-03-1899']) {
      assertError(withDate(bad), 'ECF.Encabezado.Comprador.FechaEntrega', 'dd-MM-yyyy');
    }
  });

  it('accepts leap days of leap years', () => {
    for (const good of ['29-02-2024', '29-02-2000', '31-12-2099', '01-01-1900']) assertValid(withDate(good));
  });

  it('refuses a sequence that expired before the issue date', () => {
    assertError(edited(31, { 'Encabezado.IdDoc.FechaVencimientoSecuencia': '14-03-2025' }), `${IDDOC}.FechaVencimientoSecuencia`, 'expired');
    assertValid(edited(31, { 'Encabezado.IdDoc.FechaVencimientoSecuencia': '15-03-2025' }));
  });

  it('refuses a service period that ends before it starts (FechaHasta before FechaDesde)', () => {
    const period = (desde: string, hasta: string) => edited(31, { 'Encabezado.IdDoc.FechaDesde': desde, 'Encabezado.IdDoc.FechaHasta': hasta });
    assertError(period('01-03-2025', '28-02-2025'), `${IDDOC}.FechaHasta`, 'must not be before FechaDesde; 28-02-2025 is before 01-03-2025');
    assertValid(period('01-03-2025', '31-03-2025'));
    assertValid(period('01-03-2025', '01-03-2025'));
  });

  it('refuses a payment due date before the issue date', () => {
    assertError(edited(31, { 'Encabezado.IdDoc.FechaLimitePago': '14-03-2025' }), `${IDDOC}.FechaLimitePago`, 'before FechaEmision');
  });
});

describe('several problems at once', () => {
  it('returns every problem of the document', () => {
    const paths = errorsOf(edited(31, {
      'Encabezado.Emisor.RNCEmisor': '123',
      'Encabezado.Emisor.FechaEmision': '30-02-2025',
      'Encabezado.IdDoc.Color': 'azul',
      'Encabezado.Totales.ITBIS1': 16,
      'DetallesItems.Item.0.MontoItem': '1.00',
      'Encabezado.Comprador.RazonSocialComprador': undefined,
    })).map((e) => e.path);
    for (const path of [
      `${EMISOR}.RNCEmisor`, `${EMISOR}.FechaEmision`, `${IDDOC}.Color`, 'ECF.Encabezado.Totales.ITBIS1',
      `${ITEM}[0].MontoItem`, 'ECF.Encabezado.Comprador.RazonSocialComprador', 'ECF.Encabezado.Totales.MontoGravadoI1',
    ]) assert.ok(paths.includes(path), `missing ${path} in ${paths.join(', ')}`);
  });

  it('caps the list so a hostile body cannot produce an unbounded response', () => {
    const extra = Object.fromEntries(Array.from({ length: MAX_ERRORS + 500 }, (_, i) => [`Encabezado.Emisor.x${i}`, i]));
    const errors = errorsOf(edited(31, extra));
    assert.equal(errors.length, MAX_ERRORS + 1);
    assert.match(errors.at(-1)?.message ?? '', /not listed/);
  });
});

describe('garbage input', () => {
  const deepArray = (depth: number): unknown => {
    let v: unknown = [];
    for (let i = 0; i < depth; i++) v = [v];
    return v;
  };

  it('returns errors, never throws, for bodies that are not e-CF objects', () => {
    const bodies: unknown[] = [
      null, undefined, [], 'x', 42, true, 10n, new Map(), new Date(), Object.create({ ECF: {} }),
      { ECF: [] }, { ECF: null }, { ECF: 'x' }, { ECF: {} }, { ECF: { Encabezado: [] } },
      { ECF: { Encabezado: { IdDoc: { TipoeCF: [31] } } } }, JSON.parse('{"ECF": 1e400}'), deepArray(10_000),
      { ECF: { Encabezado: deepArray(10_000) } }, JSON.parse('{"__proto__": {"ECF": 1}, "constructor": 2}'),
    ];
    for (const body of bodies) assert.ok(errorsOf(body).length > 0, `no errors for a ${typeof body}`);
  });

  it('reports deep arrays and 1e400 where objects and amounts go', () => {
    assertError(edited(31, { 'DetallesItems.Item': deepArray(10_000) }), `${ITEM}[0]`, 'must be an object');
    assertError(edited(31, { 'Encabezado.Totales.MontoTotal': JSON.parse('1e400') }), 'ECF.Encabezado.Totales.MontoTotal', 'finite');
    assertError(edited(31, { 'DetallesItems.Item': [null, 1, 'x', [], {}] }), `${ITEM}[4].NumeroLinea`, 'is required');
  });

  it('survives any garbage in any element of a valid document', () => {
    const garbage: unknown[] = [null, [], {}, [[{}]], true, '', -1, Number.NaN, 'x'.repeat(5000), { a: { b: [] } }];
    const paths = (node: JsonObject, prefix: string): string[] => Object.entries(node).flatMap(([k, v]) => {
      const path = prefix === '' ? k : `${prefix}.${k}`;
      if (Array.isArray(v)) return [path, ...v.flatMap((x, i) => (typeof x === 'object' ? paths(x as JsonObject, `${path}.${i}`) : []))];
      return typeof v === 'object' && v !== null ? [path, ...paths(v as JsonObject, path)] : [path];
    });
    const all = paths(sampleEcf(31).ECF, '');
    assert.ok(all.length > 60, `only ${all.length} element paths`);
    for (const path of all) {
      for (const value of garbage) {
        assert.doesNotThrow(() => validateEcf(edited(31, { [path]: value })), path);
      }
    }
  });
});
