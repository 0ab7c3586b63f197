/** Who a token speaks for, and how a refusal tells the client what to send (RFC 6750). */
import { realm } from '../../contract/http.ts';

/** Who a token speaks for, and what it may read. */
export interface Principal {
  readonly subject: string;
  /** `any` for a key with no scopes listed. */
  readonly scopes: ReadonlySet<string> | 'any';
  /** Epoch milliseconds of the token's `exp`; undefined for API keys. */
  readonly expiresAt: number | undefined;
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
