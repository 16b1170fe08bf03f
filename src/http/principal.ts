/** Who is making a request, once authenticated. */
export interface Principal {
  tenantId: number;
  /** Set when a bearer token was presented. */
  userId: number | null;
  sessionId: string | null;
  /** Set when an API key was presented. */
  apiKeyId: string | null;
}
