/**
 * Whether a parsed JSON value nests deeper than `max` levels (a scalar is depth 0, `[]` and
 * `{}` are depth 1). Iterative, so even a value nested 20,000 deep cannot overflow the stack
 * here; rejecting such values early keeps recursive code (JSON.stringify, drivers) safe later.
 */
export function jsonDepthOver(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    if (depth + 1 > max) return true;
    for (const item of Array.isArray(next) ? next : Object.values(next)) {
      if (typeof item === 'object' && item !== null) pending.push([item, depth + 1]);
    }
  }
  return false;
}
