import { createHash } from 'node:crypto';
import type { JWTPayload } from 'jose';

/** Characters of the password hash's digest a sign-in token carries (96 bits). */
const CREDENTIAL_CHARS = 16;

/**
 * What a sign-in token holds of its user's password: a digest of the stored hash. Every
 * password write stores a new hash (a fresh salt, even for the same password), so a changed
 * password changes the credential and the tokens signed before no longer match. The digest of
 * a salted scrypt hash tells nothing about the password.
 */
export function credentialOf(passwordHash: string | undefined): string {
  return createHash('sha256').update(passwordHash ?? '').digest('base64url').slice(0, CREDENTIAL_CHARS);
}

/**
 * Why a verified token no longer stands for its user, or undefined when it does. A sign-in
 * token must carry the user's current credential (`cv`, so a password change revokes it) and
 * name only roles the user still holds (`rl`, so taking a role away revokes it). An API key is
 * checked against its row instead: a password change leaves keys alone.
 */
export function refusal(payload: JWTPayload, credential: string, held: readonly string[], apiKey: boolean): string | undefined {
  if (apiKey) return undefined;
  if (payload.cv !== credential) return 'the password has changed since the token was issued; sign in again';
  const roles = payload.rl;
  if (!Array.isArray(roles)) return 'the token does not name its roles; sign in again';
  for (const role of roles) if (!held.includes(role as string)) return 'a role of the token has been taken from the user; sign in again';
  return undefined;
}
