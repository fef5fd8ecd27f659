/** The content codings Corral sends, best first when a client rates them equally. */
export type ContentCoding = 'br' | 'gzip';

const CODINGS: readonly ContentCoding[] = ['br', 'gzip'];

/**
 * The coding to answer with for an Accept-Encoding header (RFC 9110 §12.5.3): the one with the
 * highest q-value, brotli first on a tie; `*` rates every coding it does not name; `q=0` refuses.
 * Undefined when neither is acceptable (or the header is absent or empty): the answer goes as it
 * is. Malformed parts are skipped, never an error: the header only ever offers.
 */
export function chooseCoding(header: string | string[] | undefined): ContentCoding | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  let br: number | undefined;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of text.split(',')) {
    const semicolon = part.indexOf(';');
    const name = (semicolon === -1 ? part : part.slice(0, semicolon)).trim().toLowerCase();
    if (name !== 'br' && name !== 'gzip' && name !== 'x-gzip' && name !== '*') continue;
    const q = semicolon === -1 ? 1 : qValue(part.slice(semicolon + 1));
    if (q === undefined) continue;
    if (name === 'br') br = Math.max(br ?? 0, q);
    else if (name === '*') any = Math.max(any ?? 0, q);
    else gzip = Math.max(gzip ?? 0, q);
  }
  const rated = [br ?? any ?? 0, gzip ?? any ?? 0];
  let best: ContentCoding | undefined;
  let bestQ = 0;
  CODINGS.forEach((coding, i) => {
    if (rated[i]! > bestQ) {
      best = coding;
      bestQ = rated[i]!;
    }
  });
  return best;
}

/** The q of `;q=0.5` (other parameters ignored); undefined when malformed. */
function qValue(parameters: string): number | undefined {
  for (const parameter of parameters.split(';')) {
    const [key, value] = parameter.split('=').map((s) => s.trim());
    if (key?.toLowerCase() !== 'q') continue;
    if (value === undefined || !/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value)) return undefined;
    return Number(value);
  }
  return 1;
}
