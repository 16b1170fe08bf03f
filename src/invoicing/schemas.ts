import { S, type Schema } from '../http/openapi.ts';

// The OpenAPI schemas of the saved customers and items (docs/api.md, "Invoicing from the dashboard").

const TAX_ID = S.string({ pattern: '^(\\d{9}|\\d{11})$', description: 'RNC (9 digits) or cédula (11 digits) with DGII\'s check digit.' });
const PRICE = S.string({ pattern: '^\\d{1,16}(\\.\\d{1,4})?$', description: 'PrecioUnitarioItem before ITBIS, decimal text (up to 4 decimals).' });

export const INVOICING_SCHEMAS: Record<string, Schema> = {
  SavedCustomerBody: {
    ...S.object({
      rnc: TAX_ID,
      nombre: S.string({ minLength: 1, maxLength: 150, description: 'RazonSocialComprador.' }),
      correo: S.nullable(S.string({ maxLength: 80, format: 'email', description: 'CorreoComprador.' })),
    }, ['rnc', 'nombre']),
    additionalProperties: false,
  },
  SavedCustomer: S.object({ id: S.uuid(), rnc: TAX_ID, nombre: S.string(), correo: S.nullable(S.string()), updatedAt: S.dateTime() }),
  SavedItemBody: {
    ...S.object({
      descripcion: S.string({ minLength: 1, maxLength: 80, description: 'NombreItem; one saved item per description.' }),
      precioUnitario: PRICE,
      indicadorFacturacion: S.int({ enum: [1, 2, 3, 4], description: '1 ITBIS 18 %, 2 ITBIS 16 %, 3 ITBIS 0 %, 4 exento.' }),
      indicadorBienoServicio: S.int({ enum: [1, 2], description: '1 bien, 2 servicio.' }),
    }),
    additionalProperties: false,
  },
  SavedItem: S.object({ id: S.uuid(), descripcion: S.string(), precioUnitario: PRICE, indicadorFacturacion: S.int({ enum: [1, 2, 3, 4] }), indicadorBienoServicio: S.int({ enum: [1, 2] }), updatedAt: S.dateTime() }),
  DirectoryName: S.object({ rnc: TAX_ID, nombre: S.nullable(S.string({ description: 'The name DGII\'s directory of electronic receivers gives; null when it does not list the RNC.' })) }),
};
