import { MAX_FILENAME_LENGTH } from './attachment-definition.js';

/** The name a file gets when the client sends none (or nothing is left of it). */
export const DEFAULT_FILENAME = 'file';
/** Longest extension kept in `extname` (with its dot). */
const MAX_EXTNAME_LENGTH = 32;

/**
 * A client's filename made safe to store and to send back in a header: the last path segment
 * only (`/` and `\`), no control or bidi-override characters, Unicode NFC, no leading dots,
 * at most MAX_FILENAME_LENGTH characters (cut before the extension, which is kept).
 */
export function safeFilename(given: string | undefined): string {
  let name = (given ?? '').normalize('NFC');
  name = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  // C0/C1 controls, DEL, and the bidi controls that make `exe.png` look like `gnp.exe`.
  name = name.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
  name = name.trim().replace(/^\.+/, '').trim();
  if (name === '') return DEFAULT_FILENAME;
  const chars = [...name];
  if (chars.length <= MAX_FILENAME_LENGTH) return name;
  const ext = extnameOf(name) ?? '';
  const extChars = [...ext];
  return chars.slice(0, MAX_FILENAME_LENGTH - extChars.length).join('') + ext;
}

/** `.png` of `photo.png` (lower case), or undefined when there is none worth keeping. */
export function extnameOf(filename: string): string | undefined {
  const dot = filename.lastIndexOf('.');
  if (dot <= 0 || dot === filename.length - 1) return undefined;
  const ext = filename.slice(dot).toLowerCase();
  return ext.length <= MAX_EXTNAME_LENGTH && /^\.[\p{L}\p{N}_-]+$/u.test(ext) ? ext : undefined;
}

/**
 * `Content-Disposition` for a download: `inline` only when asked for and safe, the filename
 * as an ASCII fallback and as RFC 5987 `filename*` (UTF-8, percent-encoded).
 */
export function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
