/**
 * `If-Range` on a file download (RFC 9110 §13.1.5): the `Range` applies only while the
 * representation is the one the client already holds part of. An entity tag matches when it is
 * strong and equal to the current tag (a weak tag never matches); an HTTP-date matches when it
 * is exactly the `Last-Modified` sent (an attachment's bytes never change under its row, so that
 * date is a strong validator). Anything else, a malformed value included, means "send it all":
 * the answer is the whole file (200), never an error.
 */
export function rangeApplies(ifRange: string | undefined, tag: string, lastModified: string | undefined): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('W/')) return false;
  if (value.startsWith('"')) return value === tag;
  return lastModified !== undefined && value === lastModified;
}

/** The `Last-Modified` of an attachment: when its row was made (its bytes never change), or undefined without a readable stamp. */
export function lastModifiedOf(createdAt: unknown): string | undefined {
  if (createdAt === null || createdAt === undefined) return undefined;
  const time = createdAt instanceof Date ? createdAt.getTime() : Date.parse(String(createdAt));
  return Number.isFinite(time) ? new Date(time).toUTCString() : undefined;
}
