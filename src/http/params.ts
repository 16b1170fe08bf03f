import type { Environment } from '../environments.ts';
import { AppError } from '../errors.ts';
import { UUID } from '../lib/input.ts';
import type { RequestContext } from './types.ts';

export function tenantOf(ctx: RequestContext): number {
  if (ctx.principal === null) throw new AppError('UNAUTHORIZED');
  return ctx.principal.tenantId;
}

/** A path parameter that must be a UUID; anything else cannot name a resource, so 404. */
export function uuidParam(ctx: RequestContext, name: string): string {
  const v = ctx.params[name] ?? '';
  if (!UUID.test(v)) throw new AppError('NOT_FOUND');
  return v.toLowerCase();
}

/** The {env} of a route that has one (the router has already matched it). */
export function envOf(ctx: RequestContext): Environment {
  if (ctx.env === null) throw new AppError('NOT_FOUND');
  return ctx.env;
}
