/** Who a token speaks for, and how a refusal tells the client what to send (RFC 6750). */
import { realm } from '../../contract/http.ts';
import type { Budget } from '../config/config.ts';

/** Who a token speaks for, and what it may read. */
export interface Principal {
  /**
   * Whose budget (RATE_LIMIT) the token's requests count against, in a namespace per kind of token
   * so that no token can name another's: `key:` and the key's place in the configuration,
   * `jwt:` with the issuer and the subject (or client_id), or for a JWT naming neither, `jwt-token:`
   * and the token's own digest (each such token its own budget).
   */
  readonly budgetKey: string;
  /** `any` for a key with no scopes listed. */
  readonly scopes: ReadonlySet<string> | 'any';
  /** Epoch milliseconds of the token's `exp`; undefined for API keys. */
  readonly expiresAt: number | undefined;
  /** The web origins a key a browser carries is bound to (`origin=` in API_KEYS_FILE): accepted only with one of them in Origin. Undefined: any caller. */
  readonly origins: ReadonlySet<string> | undefined;
  /** The key's own request budget (`rate=` in API_KEYS_FILE), counted instead of RATE_LIMIT; undefined: RATE_LIMIT's. */
  readonly budget: Budget | undefined;
}

/**
 * The RFC 6750 challenge (WWW-Authenticate) of a refusal: the realm, then the error, its
 * description and the scope needed, where there are any.
 */
export function challenge(error?: string, description?: string, scope?: string): Record<string, string> {
  const parts = [`realm="${realm}"`];
  if (error) parts.push(`error="${error}"`);
  if (description) parts.push(`error_description="${description}"`);
  if (scope) parts.push(`scope="${scope}"`);
  return { 'WWW-Authenticate': `Bearer ${parts.join(', ')}` };
}
