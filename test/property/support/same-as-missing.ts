/**
 * Oracle part 3: a key of a row outside the caller's scope answers exactly like a key that
 * names no row. Both answers are reduced to status and errors, with each compared key (and its
 * missing stand-in) replaced by the same placeholder; any other difference is a leak.
 */
interface Answer {
  readonly status: number;
  readonly body: any;
}

function normalized(answer: Answer, keys: readonly number[]): string {
  let text = JSON.stringify({ status: answer.status, errors: answer.body?.errors ?? null, ...(answer.status < 400 ? { data: answer.body?.data ?? null } : {}) });
  keys.forEach((key, i) => {
    text = text.replace(new RegExp(`(?<![0-9.])${key}(?![0-9])`, 'g'), `<key${i}>`);
  });
  return text;
}

/** Why the answer for the out-of-scope keys differs from the one for missing keys, or undefined. */
export function sameAsMissing(outOfScope: Answer, missing: Answer, compared: ReadonlyArray<readonly [number, number]>): string | undefined {
  const a = normalized(outOfScope, compared.map(([key]) => key));
  const b = normalized(missing, compared.map(([, stand]) => stand));
  // Equal as given: a key the request also names elsewhere (author 27 and tag 27) is not a difference of the compared key.
  return a === b || normalized(outOfScope, []) === normalized(missing, []) ? undefined : `an out-of-scope key answers ${a.slice(0, 300)}\n    a missing key answers   ${b.slice(0, 300)}`;
}
