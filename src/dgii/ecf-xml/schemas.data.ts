// GENERATED from DGII's XSDs (src/dgii/xsd/). Do not edit by hand: regenerate with
//   npx tsx src/dgii/ecf-xml/generate-schemas.ts
import type { EcfTipo } from '../../documents/validation/ecf-types.ts';
import type { SignatureSlot, XsdDocument } from '../../documents/validation/schema/schema-types.ts';
import type { DgiiDocumentKind } from './kinds.ts';

export const DGII_DOCUMENT_SCHEMAS: Readonly<Record<DgiiDocumentKind, XsdDocument>> = {
  // rfce-32.libxml2.xsd
  RFCE: {
    root: { name: 'RFCE', min: 1, max: 1, children: [
      { name: 'Encabezado', min: 1, max: 1, children: [
        { name: 'Version', min: 1, max: 1, type: 'VersionType' },
        { name: 'IdDoc', min: 1, max: 1, children: [
          { name: 'TipoeCF', min: 1, max: 1, type: 'TipoeCFType' },
          { name: 'eNCF', min: 1, max: 1, type: 'eNCFType' },
          { name: 'TipoIngresos', min: 1, max: 1, type: 'TipoIngresosType' },
          { name: 'TipoPago', min: 1, max: 1, type: 'TipoPagoType' },
          { name: 'TablaFormasPago', min: 0, max: 1, children: [
            { name: 'FormaDePago', min: 0, max: 7, children: [
              { name: 'FormaPago', min: 0, max: 1, type: 'FormaPagoType' },
              { name: 'MontoPago', min: 0, max: 1, type: 'Decimal18D2MayorIgual0Type' },
            ] },
          ] },
        ] },
        { name: 'Emisor', min: 1, max: 1, children: [
          { name: 'RNCEmisor', min: 1, max: 1, type: 'RNCType' },
          { name: 'RazonSocialEmisor', min: 1, max: 1, type: 'AlfaNum150RType' },
          { name: 'FechaEmision', min: 1, max: 1, type: 'FechaType' },
        ] },
        { name: 'Comprador', min: 1, max: 1, children: [
          { name: 'RNCComprador', min: 0, max: 1, type: 'RNCType' },
          { name: 'IdentificadorExtranjero', min: 0, max: 1, type: 'AlfaNum20Type' },
          { name: 'RazonSocialComprador', min: 0, max: 1, type: 'AlfaNum150Type' },
        ] },
        { name: 'Totales', min: 1, max: 1, children: [
          { name: 'MontoGravadoTotal', min: 0, max: 1, type: 'Decimal18D2MayorIgual0Type' },
          { name: 'MontoGravadoI1', min: 0, max: 1, type: 'Decimal18D2MayorIgual0Type' },
          { name: 'MontoGravadoI2', min: 0, max: 1, type: 'Decimal18D2MayorIgual0Type' },
          { name: 'MontoGravadoI3', min: 0, max: 1, type: 'Decimal18D2MayorIgual0Type' },
          { name: 'MontoExento', min: 0, max: 1, type: 'Decimal18D2MayorIgual0Type' },
          { name: 'TotalITBIS', min: 0, max: 1, type: 'Decimal18D2MayorIgual0Type' },
          { name: 'TotalITBIS1', min: 0, max: 1, type: 'Decimal18D2MayorIgual0Type' },
          { name: 'TotalITBIS2', min: 0, max: 1, type: 'Decimal18D2MayorIgual0Type' },
          { name: 'TotalITBIS3', min: 0, max: 1, type: 'Decimal18D2MayorIgual0Type' },
          { name: 'MontoImpuestoAdicional', min: 0, max: 1, type: 'Decimal18D2Mayor0Type' },
          { name: 'ImpuestosAdicionales', min: 0, max: 1, children: [
            { name: 'ImpuestoAdicional', min: 0, max: 20, children: [
              { name: 'TipoImpuesto', min: 0, max: 1, type: 'ImpuestosAdicionalesType' },
              { name: 'MontoImpuestoSelectivoConsumoEspecifico', min: 0, max: 1, type: 'Decimal18D2Mayor0Type' },
              { name: 'MontoImpuestoSelectivoConsumoAdvalorem', min: 0, max: 1, type: 'Decimal18D2Mayor0Type' },
              { name: 'OtrosImpuestosAdicionales', min: 0, max: 1, type: 'Decimal18D2Mayor0Type' },
            ] },
          ] },
          { name: 'MontoTotal', min: 1, max: 1, type: 'Decimal18D2MayorIgual0Type' },
          { name: 'MontoNoFacturable', min: 0, max: 1, type: 'Decimal18D2NegativoType' },
          { name: 'MontoPeriodo', min: 0, max: 1, type: 'Decimal18D2NegativoType' },
        ] },
        { name: 'CodigoSeguridadeCF', min: 1, max: 1, type: 'CodigoSeguridadeCFType' },
      ] },
    ] },
    simpleTypes: {
      AlfaNum150RType: { base: 'string', minLength: 1, maxLength: 150 },
      AlfaNum150Type: { base: 'string', maxLength: 150 },
      AlfaNum20Type: { base: 'string', maxLength: 20 },
      CodigoSeguridadeCFType: { base: 'string', patterns: ['.{6}'] },
      Decimal18D2Mayor0Type: { base: 'decimal', patterns: ['[0-9]{1,16}(.[0-9]{2})?'], totalDigits: 18, fractionDigits: 2, minInclusive: '0.01' },
      Decimal18D2MayorIgual0Type: { base: 'decimal', patterns: ['[0-9]{1,16}(.[0-9]{2})?'], totalDigits: 18, fractionDigits: 2 },
      Decimal18D2NegativoType: { base: 'decimal', patterns: ['[+-]?[0-9]{1,16}(.[0-9]{2})?'], totalDigits: 18, fractionDigits: 2 },
      FechaType: { base: 'string', patterns: ['\\s*(3[01]|[12][$0-9]|0?[1-9])\\-(1[012]|0?[1-9])\\-((19|20)\\d{2})\\s*'] },
      FormaPagoType: { base: 'integer', enumeration: ['1', '2', '3', '4', '5', '6', '7', '8'] },
      ImpuestosAdicionalesType: { base: 'string', enumeration: [
        '001', '002', '003', '004', '005', '006', '007', '008', '009', '010', '011', '012', '013', '014',
        '015', '016', '017', '018', '019', '020', '021', '022', '023', '024', '025', '026', '027', '028',
        '029', '030', '031', '032', '033', '034', '035', '036', '037', '038', '039',
      ] },
      Interger6Type: { base: 'integer', patterns: ['[0-9]{1,6}'], totalDigits: 6 },
      RNCType: { base: 'integer', patterns: ['[0-9]{11}|[0-9]{9}'] },
      TipoIngresosType: { base: 'integer', enumeration: ['01', '02', '03', '04', '05', '06'], patterns: ['[0]{1}[1-6]{1}'] },
      TipoPagoType: { base: 'integer', enumeration: ['1', '2', '3'] },
      TipoeCFType: { base: 'integer', enumeration: ['32'] },
      VersionType: { base: 'decimal', enumeration: ['1.0'], patterns: ['[1]{1}.[0]{1}'] },
      eNCFType: { base: 'string', patterns: ['([a-z0-9A-Z]{13,13})*'], minLength: 13, maxLength: 13 },
    },
    signature: { min: 1, max: 1 },
  },
  // arecf.xsd
  ARECF: {
    root: { name: 'ARECF', min: 1, max: 1, children: [
      { name: 'DetalleAcusedeRecibo', min: 1, max: 1, children: [
        { name: 'Version', min: 1, max: 1, type: 'VersionType' },
        { name: 'RNCEmisor', min: 1, max: 1, type: 'RNCType' },
        { name: 'RNCComprador', min: 1, max: 1, type: 'RNCType' },
        { name: 'eNCF', min: 1, max: 1, type: 'eNCFType' },
        { name: 'Estado', min: 1, max: 1, type: 'EstadoType' },
        { name: 'CodigoMotivoNoRecibido', min: 0, max: 1, type: 'CodigoMotivoNoRecibidoType' },
        { name: 'FechaHoraAcuseRecibo', min: 1, max: 1, type: 'DateAndTimeType' },
      ] },
    ] },
    simpleTypes: {
      CodigoMotivoNoRecibidoType: { base: 'integer', enumeration: ['1', '2', '3', '4'] },
      DateAndTimeType: { base: 'string', patterns: ['(3[01]|[12][0-9]|0[1-9])-(1[0-2]|0[1-9])-[0-9]{4} (2[0-3]|[01]?[0-9]):([0-5]?[0-9]):([0-5]?[0-9])'] },
      EstadoType: { base: 'integer', enumeration: ['0', '1'] },
      RNCType: { base: 'integer', patterns: ['[0-9]{11}|[0-9]{9}'] },
      VersionType: { base: 'decimal', enumeration: ['1.0'], totalDigits: 2, fractionDigits: 1 },
      eNCFType: { base: 'string', patterns: ['([a-z0-9A-Z]{13,13})|([a-z0-9A-Z]{11,11})|([a-z0-9A-Z]{9,9})*'], minLength: 9, maxLength: 13 },
    },
    signature: { min: 0, max: 1 },
  },
  // acecf.libxml2.xsd
  ACECF: {
    root: { name: 'ACECF', min: 1, max: 1, children: [
      { name: 'DetalleAprobacionComercial', min: 1, max: 1, children: [
        { name: 'Version', min: 1, max: 1, type: 'versionType' },
        { name: 'RNCEmisor', min: 1, max: 1, type: 'RNCValidation' },
        { name: 'eNCF', min: 1, max: 1, type: 'AlfaNum11Validation' },
        { name: 'FechaEmision', min: 1, max: 1, type: 'DateValidation' },
        { name: 'MontoTotal', min: 1, max: 1, type: 'Decimal18D2Validation' },
        { name: 'RNCComprador', min: 1, max: 1, type: 'RNCValidation' },
        { name: 'Estado', min: 1, max: 1, type: 'EstadoType' },
        { name: 'DetalleMotivoRechazo', min: 0, max: 1, type: 'AlfaNum250Validation' },
        { name: 'FechaHoraAprobacionComercial', min: 1, max: 1, type: 'DateAndTimeValidation' },
      ] },
    ] },
    simpleTypes: {
      AlfaNum11Validation: { base: 'string', patterns: ['([a-z0-9A-Z]{13,13})|([a-z0-9A-Z]{11,11})|([a-z0-9A-Z]{9,9})'] },
      AlfaNum250Validation: { base: 'string', maxLength: 250 },
      DateAndTimeValidation: { base: 'string', patterns: ['(3[01]|[12][0-9]|0[1-9])-(1[0-2]|0[1-9])-[0-9]{4} (2[0-3]|[01]?[0-9]):([0-5]?[0-9]):([0-5]?[0-9])'] },
      DateValidation: { base: 'string', patterns: ['(3[01]|[12][0-9]|0?[1-9])\\-(1[012]|0?[1-9])\\-((20|20)\\d{2})'] },
      Decimal18D2Validation: { base: 'decimal', patterns: ['[0-9]+(\\.[0-9]{2})'], totalDigits: 18, fractionDigits: 2 },
      EstadoRechazoType: { base: 'integer', enumeration: ['0', '1', '2', '3', '4'] },
      EstadoType: { base: 'integer', enumeration: ['1', '2'] },
      RNCValidation: { base: 'integer', patterns: ['(\\d{11,11})|(\\d{9,9})'] },
      versionType: { base: 'string', enumeration: ['1.0'] },
    },
    signature: { min: 0, max: 1 },
  },
  // anecf.xsd
  ANECF: {
    root: { name: 'ANECF', min: 1, max: 1, children: [
      { name: 'Encabezado', min: 1, max: 1, children: [
        { name: 'Version', min: 1, max: 1, type: 'versionType' },
        { name: 'RncEmisor', min: 1, max: 1, type: 'RNCValidation' },
        { name: 'CantidadeNCFAnulados', min: 1, max: 1, type: 'Num10Validation' },
        { name: 'FechaHoraAnulacioneNCF', min: 1, max: 1, type: 'DateAndTimeValidation' },
      ] },
      { name: 'DetalleAnulacion', min: 1, max: 1, children: [
        { name: 'Anulacion', min: 1, max: 10, children: [
          { name: 'NoLinea', min: 1, max: 10, type: 'Num2Validation' },
          { name: 'TipoeCF', min: 1, max: 1, type: 'CFType' },
          { name: 'TablaRangoSecuenciasAnuladaseNCF', min: 1, max: 1, children: [
            { name: 'Secuencias', min: 1, max: 10000, children: [
              { name: 'SecuenciaeNCFDesde', min: 1, max: 1, type: 'AlfaNum13Validation' },
              { name: 'SecuenciaeNCFHasta', min: 1, max: 1, type: 'AlfaNum13Validation' },
            ] },
          ] },
          { name: 'CantidadeNCFAnulados', min: 1, max: 1, type: 'Num10Validation' },
        ] },
      ] },
    ] },
    simpleTypes: {
      AlfaNum13Validation: { base: 'string', minLength: 13, maxLength: 13 },
      CFType: { base: 'integer', enumeration: ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'] },
      DateAndTimeValidation: { base: 'string', patterns: ['(3[01]|[12][0-9]|0[1-9])-(1[0-2]|0[1-9])-[0-9]{4} (2[0-3]|[01]?[0-9]):([0-5]?[0-9]):([0-5]?[0-9])'] },
      Num10Validation: { base: 'integer', patterns: ['(\\d{1,10})'] },
      Num2Validation: { base: 'integer', patterns: ['\\d{1,2}'] },
      RNCValidation: { base: 'integer', patterns: ['(\\d{11,11})|(\\d{9,9})'] },
      SerieType: { base: 'string', enumeration: [
        'B', 'C', 'D', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O', 'P', 'Q', 'P', 'R', 'S', 'T', 'U',
        'V', 'W', 'X', 'Y', 'Z',
      ] },
      versionType: { base: 'string', enumeration: ['1.0'] },
    },
    signature: { min: 1, max: 1 },
  },
};

/** The trailing xs:any of each e-CF XSD; the trees are in the e-CF validation table. */
export const ECF_SIGNATURE_SLOTS: Readonly<Record<EcfTipo, SignatureSlot | undefined>> = {
  31: { min: 1, max: 1 },
  32: { min: 1, max: 1 },
  33: { min: 1, max: 1 },
  34: { min: 1, max: 1 },
  41: { min: 1, max: 1 },
  43: { min: 1, max: 1 },
  44: { min: 1, max: 1 },
  45: { min: 1, max: 1 },
  46: { min: 1, max: 1 },
  47: { min: 1, max: 1 },
};
