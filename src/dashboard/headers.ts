// Every dashboard response carries these, including its 304s, 404s and redirects: the page
// runs only its own scripts and styles, talks only to this origin, and cannot be framed.

/** The Content-Security-Policy, one directive per entry so each is easy to review. */
export const CSP_DIRECTIVES = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'connect-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'form-action': ["'self'"],
  'base-uri': ["'none'"],
  'frame-ancestors': ["'none'"],
  // The page builds its DOM with textContent and createElement only; Trusted Types makes any
  // string-to-HTML sink (innerHTML, document.write) throw instead of becoming an XSS.
  'require-trusted-types-for': ["'script'"],
  'trusted-types': ["'none'"],
} as const satisfies Record<string, readonly string[]>;

export const CONTENT_SECURITY_POLICY = Object.entries(CSP_DIRECTIVES)
  .map(([name, values]) => `${name} ${values.join(' ')}`)
  .join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

/** The HTML carries no secrets but is never worth caching; assets revalidate by ETag. */
export const CACHE_CONTROL = {
  html: 'no-store',
  asset: 'no-cache',
} as const;
