import { S, envelope, type Schema } from '../http/openapi.ts';
import { ENVIRONMENTS } from '../environments.ts';

// OpenAPI schemas of the identity endpoints.
export const TOKEN_SET: Schema = S.object({
  accessToken: S.string({ description: 'JWT for Authorization: Bearer.' }),
  idToken: S.string({ description: 'JWT with the user\'s identity (email, name).' }),
  refreshToken: S.string({ description: 'JWT for POST /{env}/customer/refresh; single use, rotated on every refresh.' }),
  expiresIn: S.int({ description: 'Lifetime of the access token in seconds.' }),
  tokenType: S.string({ const: 'Bearer' }),
});

export const API_KEY: Schema = S.object({
  id: S.uuid(),
  name: S.string(),
  prefix: S.string({ description: 'ecf_sk_<publicId>_… (the secret is never shown again).' }),
  createdAt: S.dateTime(),
  lastUsedAt: S.nullable(S.dateTime()),
  revokedAt: S.nullable(S.dateTime()),
  environments: S.array(S.string({ enum: [...ENVIRONMENTS] })),
  readOnly: S.bool(),
});

export const NEW_API_KEY: Schema = { allOf: [API_KEY, S.object({ key: S.string({ description: 'The whole key, shown only in this response.' }) })] };

export const TOKEN_RESPONSE = { description: 'A token set.', schema: envelope(S.ref('TokenSet')) };

export const IDENTITY_SCHEMAS: Record<string, Schema> = { TokenSet: TOKEN_SET, ApiKey: API_KEY, NewApiKey: NEW_API_KEY };
