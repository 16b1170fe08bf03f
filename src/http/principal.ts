import type { Environment } from '../environments.ts';
import { AppError } from '../errors.ts';

/** What an API key may do: the environments it acts in, and whether it may write at all. */
export interface ApiKeyScope {
  environments: readonly Environment[];
  readOnly: boolean;
}

/** Who is making a request, once authenticated. */
export interface Principal {
  tenantId: number;
  /** Set when a bearer token was presented. */
  userId: number | null;
  sessionId: string | null;
  /** Set when an API key was presented. */
  apiKeyId: string | null;
  /** The scope of the presented API key; null when no key was presented. */
  apiKeyScope?: ApiKeyScope | null;
}

const READS = new Set(['GET', 'HEAD']);

/**
 * 403 FORBIDDEN, saying why, when the request's API key may not make it: a path environment
 * outside the key's environments, or a write (any method but GET) with a read-only key.
 */
export function assertInScope(principal: Principal, method: string, env: Environment | null): void {
  const scope = principal.apiKeyScope;
  if (scope == null) return;
  if (env !== null && !scope.environments.includes(env)) {
    throw new AppError('FORBIDDEN', `This API key may only be used in ${scope.environments.join(', ')}; it is not valid in ${env}. Create a key for ${env} with POST /api/keys.`);
  }
  if (scope.readOnly && !READS.has(method.toUpperCase())) {
    throw new AppError('FORBIDDEN', `This API key is read-only: it may not make ${method.toUpperCase()} requests. Use a key without "readOnly".`);
  }
}
