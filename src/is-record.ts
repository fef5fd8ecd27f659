/** A plain JSON object (not null, not an array): the shape check every stage of the request path needs. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
