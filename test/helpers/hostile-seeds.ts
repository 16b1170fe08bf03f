import { buildAcecfXml, buildAnecfXml } from '../../src/ecf/xml/index.ts';
import { seedModelXml } from '../../src/ecf/xml/seed.ts';

// What a hostile receiver (or a hostile "DGII") hands back when asked for an authentication seed,
// hoping the tenant's key signs it: DGII's documents composed in the tenant's name, and seeds
// dressed up with something more. None of them may ever be signed.

const DECL = '<?xml version="1.0" encoding="utf-8"?>';
const NS = 'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';
const FECHA = '2026-11-27T01:35:27.8683435-04:00';

/** Name → document, for a tenant with RNC `rnc`. */
export function hostileSeeds(rnc: string): Record<string, string> {
  const seed = seedModelXml('semilla', Date.now());
  return {
    'an unsigned ECF': `${DECL}<ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF><eNCF>E310000000099</eNCF></IdDoc><Emisor><RNCEmisor>${rnc}</RNCEmisor></Emisor></Encabezado></ECF>`,
    'an unsigned ACECF': buildAcecfXml({ rncEmisor: '101010101', encf: 'E310000000007', fechaEmision: '01-11-2026', montoTotal: '100.00', rncComprador: rnc, estado: 1, fechaHoraAprobacion: new Date() }),
    'an unsigned ANECF': buildAnecfXml({ rncEmisor: rnc, lines: [{ tipo: 31, secuencias: [{ desde: 'E310000000001', hasta: 'E310000000009' }] }], fechaHoraAnulacion: new Date() }),
    'a seed with an extra element': seed.replace('</SemillaModel>', `<ECF><RNCEmisor>${rnc}</RNCEmisor></ECF></SemillaModel>`),
    'a seed whose valor holds an element': `${DECL}<SemillaModel ${NS}><valor><ECF/></valor><fecha>${FECHA}</fecha></SemillaModel>`,
    'a seed with an attribute': `${DECL}<SemillaModel ${NS} Id="ref"><valor>abc</valor><fecha>${FECHA}</fecha></SemillaModel>`,
    'a seed in a default namespace': `${DECL}<SemillaModel xmlns="urn:otro"><valor>abc</valor><fecha>${FECHA}</fecha></SemillaModel>`,
    'a seed with a prefixed root': `${DECL}<p:SemillaModel xmlns:p="urn:otro"><p:valor>abc</p:valor><fecha>${FECHA}</fecha></p:SemillaModel>`,
    'a seed with a comment': `${DECL}<SemillaModel><valor>abc</valor><!-- x --><fecha>${FECHA}</fecha></SemillaModel>`,
    'a seed after a processing instruction': `${DECL}<?firma algo?><SemillaModel><valor>abc</valor><fecha>${FECHA}</fecha></SemillaModel>`,
    'a seed with valor twice': `${DECL}<SemillaModel><valor>abc</valor><valor>def</valor><fecha>${FECHA}</fecha></SemillaModel>`,
    'a seed without fecha': `${DECL}<SemillaModel><valor>abc</valor></SemillaModel>`,
    'a seed with text beside its children': `${DECL}<SemillaModel>RNCEmisor ${rnc}<valor>abc</valor><fecha>${FECHA}</fecha></SemillaModel>`,
    'an oversized seed': `${DECL}<SemillaModel><valor>${'A'.repeat(5000)}</valor><fecha>${FECHA}</fecha></SemillaModel>`,
    'a seed whose valor is too long': `${DECL}<SemillaModel><valor>${'A'.repeat(1100)}</valor><fecha>${FECHA}</fecha></SemillaModel>`,
    'no XML at all': 'semilla',
  };
}

/** DGII's seed as DGII writes it, and the same with whitespace between the elements. */
export const GENUINE_SEEDS: Record<string, string> = {
  'DGII’s seed': `${DECL}<SemillaModel ${NS}><valor>pOdbUU0rYTfIEo3iSBJdvIUxOVbz1GOX7RZQfgExBMoOJ/T+Bw3jS2yNR7lfZB1bSQDuK9k8d5jJ3Fzb6bHwfA==</valor><fecha>${FECHA}</fecha></SemillaModel>`,
  'an indented seed': `${DECL}\n<SemillaModel ${NS}>\n  <valor>abc</valor>\n  <fecha>${FECHA}</fecha>\n</SemillaModel>\n`,
  'our own seed': seedModelXml('0123456789abcdef', Date.now()),
};
