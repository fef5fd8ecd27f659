/** Who a request acts for, once its token was verified. */
export interface Principal {
  /** The user as the API returns it (never the password). */
  readonly user: Readonly<Record<string, unknown>> & { readonly id: number | string };
  /** The roles this request acts with: the X-Role, or every role of the user (or the API key's role). */
  readonly roles: readonly string[];
  /** The token's id (`jti`), what sign-out revokes. */
  readonly tokenId: string;
  /** When the token expires, in ms since the epoch. */
  readonly expiresAt: number;
  /** A sign-in token's password credential (`cv`, auth/credentials.ts): what a stream ticket is bound to. */
  readonly credential?: string;
  /** Set when the request authenticated with an API key. */
  readonly apiKeyId?: string;
  /** An API key's credential (a digest of its stored digest): what a stream ticket asked with the key is bound to. */
  readonly keyCredential?: string;
}
