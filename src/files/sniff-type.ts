/**
 * What a file's first bytes say it is (its magic bytes), so a client's Content-Type is never
 * believed alone: a handful of types by signature, SVG and plain text by looking at the text,
 * `application/octet-stream` for anything else.
 */
export const OCTET_STREAM = 'application/octet-stream';

const SIGNATURES: readonly { type: string; bytes: readonly (number | undefined)[] }[] = [
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', bytes: [0x47, 0x49, 0x46, 0x38] },
  // RIFF????WEBP
  { type: 'image/webp', bytes: [0x52, 0x49, 0x46, 0x46, undefined, undefined, undefined, undefined, 0x57, 0x45, 0x42, 0x50] },
  { type: 'application/pdf', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { type: 'application/zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
];

/** Office Open XML types, told apart by the folder names their zip entries start with. */
const OOXML: readonly { type: string; folder: string }[] = [
  { type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', folder: 'word/' },
  { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', folder: 'xl/' },
  { type: 'application/vnd.openxmlformats-officedocument.presentationml.presentation', folder: 'ppt/' },
];

/** Text types a client may name for text content (kept instead of text/plain); anything markup-like is sniffed, not taken. */
const DECLARED_TEXT_TYPES: ReadonlySet<string> = new Set(['text/plain', 'text/csv', 'text/markdown', 'text/tab-separated-values', 'application/json']);

function matches(head: Buffer, bytes: readonly (number | undefined)[]): boolean {
  if (head.length < bytes.length) return false;
  return bytes.every((byte, index) => byte === undefined || head[index] === byte);
}

/** Text: valid UTF-8 (a sequence cut by the end of `head` allowed) without NUL or most control bytes. */
function isText(head: Buffer): boolean {
  if (head.length === 0) return true;
  for (const byte of head) if (byte === 0 || (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b)) return false;
  // Drop a multi-byte sequence the head cut in two before decoding strictly.
  let end = head.length;
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const byte = head[end - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    if (byte >= 0xc0) {
      const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      if (back < need) end -= back;
    }
    break;
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

/**
 * The content type of a file from its first bytes (`head`, up to 4100), with the client's
 * declared type used only to name text more precisely (text/csv) — never to make content
 * something its bytes are not.
 */
export function sniffType(head: Buffer, declared: string | undefined): string {
  for (const { type, bytes } of SIGNATURES) {
    if (!matches(head, bytes)) continue;
    if (type !== 'application/zip') return type;
    const names = head.toString('latin1');
    return OOXML.find((entry) => names.includes(entry.folder))?.type ?? type;
  }
  if (!isText(head)) return OCTET_STREAM;
  const text = head.toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!doctype svg[^>]*>\s*)?<svg[\s>]/.test(text)) return 'image/svg+xml';
  if (/^<(!doctype html|html|head|body|script|iframe)[\s>]/.test(text)) return 'text/html';
  if (text.startsWith('<?xml')) return 'application/xml';
  const claimed = declared?.split(';')[0]!.trim().toLowerCase();
  return claimed !== undefined && DECLARED_TEXT_TYPES.has(claimed) ? claimed : 'text/plain';
}

/** Types served `inline`: raster images, PDF and plain text, which a browser shows without running anything. */
const INLINE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'text/plain']);

export function isInlineType(type: string): boolean {
  return INLINE_TYPES.has(type);
}
