import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.ts';
import { UUID } from '../lib/input.ts';

// HS256 JWTs. The algorithm is fixed here and the token's header must name exactly it:
// a token saying "none", RS256 or anything else is refused before any signature check.

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const MAX_TOKEN_LENGTH = 4096;
const B64URL = /^[A-Za-z0-9_-]+$/;
const CLOCK_SKEW_SEC = 30;

export const TOKEN_TYPES = ['access', 'id', 'refresh'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

export interface Claims {
  iss: string;
  sub: string;
  typ: TokenType;
  tid: number;
  iat: number;
  exp: number;
  jti: string;
  sid?: string;
  email?: string;
  name?: string;
}

function sign(input: string, key: Buffer): Buffer {
  return createHmac('sha256', key).update(input).digest();
}

export function signJwt(claims: Omit<Claims, 'iat' | 'exp' | 'jti'> & { jti?: string }, key: Buffer, ttlSec: number, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const payload: Claims = { ...claims, jti: claims.jti ?? randomUUID(), iat, exp: iat + ttlSec };
  const body = `${HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${body}.${sign(body, key).toString('base64url')}`;
}

function parseJsonPart(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

function isClaims(v: unknown): v is Claims {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  // Every jti and sid this service issues is a UUID and is looked up in uuid columns: any
  // other value is no token of ours, and must not reach a query that would fail on it.
  return typeof c.iss === 'string' && typeof c.sub === 'string' && typeof c.tid === 'number' && Number.isInteger(c.tid)
    && typeof c.iat === 'number' && typeof c.exp === 'number' && typeof c.jti === 'string' && UUID.test(c.jti)
    && (TOKEN_TYPES as readonly unknown[]).includes(c.typ)
    && (c.sid === undefined || (typeof c.sid === 'string' && UUID.test(c.sid)));
}

/** Verifies signature, algorithm, issuer, type and lifetime; throws INVALID_TOKEN or TOKEN_EXPIRED. */
export function verifyJwt(token: string, key: Buffer, expected: { issuer: string; type: TokenType }, now = Date.now()): Claims {
  const invalid = (why: string) => new AppError('INVALID_TOKEN', `The ${expected.type} token is invalid: ${why}`);
  if (token.length > MAX_TOKEN_LENGTH) throw invalid('too long');
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => B64URL.test(p))) throw invalid('not a JWT');
  const [h, p, s] = parts as [string, string, string];
  const header = parseJsonPart(h);
  if (typeof header !== 'object' || header === null || (header as { alg?: unknown }).alg !== 'HS256') {
    throw invalid('unsupported algorithm');
  }
  const expectedSig = sign(`${h}.${p}`, key);
  const actualSig = Buffer.from(s, 'base64url');
  if (actualSig.length !== expectedSig.length || !timingSafeEqual(actualSig, expectedSig)) throw invalid('bad signature');
  const claims = parseJsonPart(p);
  if (!isClaims(claims)) throw invalid('malformed claims');
  if (claims.iss !== expected.issuer) throw invalid('wrong issuer');
  if (claims.typ !== expected.type) throw invalid(`not an ${expected.type} token`);
  const nowSec = Math.floor(now / 1000);
  if (claims.iat > nowSec + CLOCK_SKEW_SEC) throw invalid('issued in the future');
  if (claims.exp <= nowSec) {
    throw expected.type === 'access' ? new AppError('TOKEN_EXPIRED') : invalid('expired');
  }
  return claims;
}
