/**
 * The one error root. Every failure the service or its tools name is a ServiceError with a stable
 * `code` (as jose names its errors: `ERR_JWT_EXPIRED`); code and tests match the code, never the
 * class or the message, which is for people. The request path throws ServiceErrors; each other
 * domain its own subclass: the body store a StoreError, the configuration a ConfigError, the tools
 * an ImportError, a BuildError or (deploy/nginx.ts) a RenderError. Where a failure reaches a client,
 * proxy/http/failure.ts turns its code into a status and the envelope: the one place that does.
 */

/** The codes, by where they arise. */
export type ErrorCode =
  // The client's request: the HTTP edge, the token, the operation and its parameters.
  | 'ERR_REQUEST_MALFORMED'
  | 'ERR_REQUEST_TIMEOUT'
  | 'ERR_REQUEST_TOO_LARGE'
  | 'ERR_HTTP_VERSION'
  | 'ERR_EXPECTATION'
  | 'ERR_METHOD_NOT_ALLOWED'
  | 'ERR_AUTH_REQUIRED'
  | 'ERR_AUTH_MALFORMED'
  | 'ERR_TOKEN_INVALID'
  | 'ERR_TOKEN_UNVERIFIABLE'
  | 'ERR_SCOPE_MISSING'
  | 'ERR_KEY_ORIGIN'
  | 'ERR_RATE_LIMITED'
  | 'ERR_NO_OPERATION'
  | 'ERR_NO_FILE'
  | 'ERR_PARAM_MISSING'
  | 'ERR_PARAM_REPEATED'
  | 'ERR_PARAMS_TOO_MANY'
  | 'ERR_PARAM_UNKNOWN'
  | 'ERR_PARAM_INVALID'
  | 'ERR_LANGUAGE_UNAVAILABLE'
  | 'ERR_YEAR_OUT_OF_RANGE'
  | 'ERR_NOT_FOUND'
  | 'ERR_RANGE_NOT_SATISFIABLE'
  // The body store: the build on disk or at the origin.
  | 'ERR_DIST_MISSING'
  | 'ERR_MANIFEST_INVALID'
  | 'ERR_BODY_UNREADABLE'
  | 'ERR_ORIGIN_TIMEOUT'
  | 'ERR_ORIGIN_UNREACHABLE'
  | 'ERR_ORIGIN_ANSWER'
  | 'ERR_ORIGIN_NO_BODY'
  | 'ERR_ORIGIN_INCOMPLETE'
  | 'ERR_ORIGIN_SWITCHING'
  // Readiness: this process should be taken out of a load balancer's rotation.
  | 'ERR_NOT_READY'
  // The process itself: stopping (SIGTERM), still serving but no longer ready.
  | 'ERR_STOPPING'
  // Start-up and the tools.
  | 'ERR_CONFIG'
  | 'ERR_LISTEN'
  | 'ERR_IMPORT'
  | 'ERR_BUILD'
  | 'ERR_RENDER'
  | 'ERR_USAGE'
  // Anything else: not a client's doing, and not foreseen.
  | 'ERR_UNAVAILABLE';

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Response headers that belong to the failure itself: a challenge, Allow, Retry-After. */
    readonly headers: Readonly<Record<string, string>> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A failure that is a list of problems found at once (a configuration, an import, a build). */
export class ProblemsError extends ServiceError {
  constructor(
    code: ErrorCode,
    readonly problems: readonly string[],
    summary: string,
    shown = problems.length,
  ) {
    const more = problems.length > shown ? `\n… and ${problems.length - shown} more` : '';
    super(code, `${summary}:\n- ${problems.slice(0, shown).join('\n- ')}${more}`);
  }
}
