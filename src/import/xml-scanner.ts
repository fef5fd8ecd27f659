import { ApiError } from '../errors/api-error.js';

/** What an XmlScanner reports, in document order. Names and attribute names lose their namespace prefix (`x:c` → `c`). */
export interface XmlHandler {
  open(name: string, attributes: ReadonlyMap<string, string>, selfClosing: boolean): void;
  close(name: string): void;
  /** Character data, decoded; one run of text may come in several pieces. */
  text(text: string): void;
}

/** The longest tag, comment, processing instruction or CDATA section held while it arrives. */
export const MAX_MARKUP_CHARS = 1024 * 1024 + 1024;
/** `&#x10FFFF;` is the longest reference the five XML entities and character references allow. */
const MAX_REFERENCE_CHARS = 12;

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const ATTRIBUTE = /([^\s=/]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const REFERENCE = /&([^;&]{0,10});/g;

export const xmlError = (message: string): ApiError => new ApiError('IMPORT_FILE_INVALID', `the XLSX file cannot be read: ${message}`);

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/** Text with its entity and character references replaced; an unknown entity is a broken file (no DTD, so none can be declared). */
export function decodeXml(text: string): string {
  if (!text.includes('&')) return text;
  if (/&(?![^;&]{0,10};)/.test(text)) throw xmlError('a bare & in text');
  return text.replace(REFERENCE, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      if (!Number.isInteger(code) || code < 0 || code > 0x10ffff) throw xmlError(`${whole.slice(0, 20)} is not a character`);
      return String.fromCodePoint(code);
    }
    const entity = ENTITIES[name];
    if (entity === undefined) throw xmlError(`the entity &${name.slice(0, 20)}; is not one XML defines`);
    return entity;
  });
}

/** Where the `>` that ends the tag starting at `from` is (quotes respected), or -1 when it has not arrived yet. */
function tagEnd(buffer: string, from: number): number {
  let quote = '';
  for (let at = from; at < buffer.length; at++) {
    const char = buffer[at];
    if (quote !== '') {
      if (char === quote) quote = '';
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '>') return at;
  }
  return -1;
}

/**
 * A small streaming XML tokenizer for the parts of an XLSX: text is written in pieces as it is
 * inflated, and elements and text are reported as soon as they are whole. What it holds is one
 * unfinished tag (at most MAX_MARKUP_CHARS) and a partial reference: text is handed on as it
 * arrives, so a long cell costs its reader, which bounds it, not the tokenizer. Document type
 * declarations are refused (no entity can be declared, so none can expand).
 */
export class XmlScanner {
  private pending = '';

  constructor(private readonly handler: XmlHandler) {}

  write(chunk: string): void {
    const buffer = this.pending === '' ? chunk : this.pending + chunk;
    let at = 0;
    while (at < buffer.length) {
      const lt = buffer.indexOf('<', at);
      if (lt !== at) {
        const stop = lt < 0 ? buffer.length : lt;
        // A reference cut by the chunk's end waits for the rest.
        const amp = lt < 0 ? buffer.lastIndexOf('&', stop) : -1;
        const cut = amp >= at && !buffer.includes(';', amp) ? amp : stop;
        if (cut > at) this.handler.text(decodeXml(buffer.slice(at, cut)));
        at = cut;
        if (lt < 0) break;
        continue;
      }
      const end = this.markup(buffer, at);
      if (end < 0) break;
      at = end;
    }
    this.pending = buffer.slice(at);
    if (this.pending.length > MAX_MARKUP_CHARS || (!this.pending.startsWith('<') && this.pending.length > MAX_REFERENCE_CHARS)) {
      throw xmlError(`a tag or reference longer than ${MAX_MARKUP_CHARS} characters`);
    }
  }

  /** The end of the input: anything still held is a document cut short. */
  end(): void {
    if (this.pending.trim() !== '') throw xmlError('the XML ends inside a tag');
  }

  /** Reports the markup starting at `at` (a `<`) and returns where it ends, or -1 when it has not all arrived. */
  private markup(buffer: string, at: number): number {
    if (buffer.startsWith('<!--', at) || (buffer.length - at < 4 && '<!--'.startsWith(buffer.slice(at)))) {
      const close = buffer.indexOf('-->', at + 4);
      return close < 0 ? -1 : close + 3;
    }
    if (buffer.startsWith('<?', at)) {
      const close = buffer.indexOf('?>', at + 2);
      return close < 0 ? -1 : close + 2;
    }
    if (buffer.startsWith('<![CDATA[', at) || (buffer.length - at < 9 && '<![CDATA['.startsWith(buffer.slice(at)))) {
      const close = buffer.indexOf(']]>', at + 9);
      if (close < 0) return -1;
      this.handler.text(buffer.slice(at + 9, close));
      return close + 3;
    }
    if (buffer.startsWith('<!', at)) throw xmlError('document type declarations are not read');
    const close = tagEnd(buffer, at + 1);
    if (close < 0) return -1;
    const tag = buffer.slice(at + 1, close);
    if (tag.startsWith('/')) {
      this.handler.close(localName(tag.slice(1).trim()));
      return close + 1;
    }
    const selfClosing = tag.endsWith('/');
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const nameEnd = body.search(/[\s]/);
    const name = nameEnd < 0 ? body : body.slice(0, nameEnd);
    if (name === '') throw xmlError('a tag without a name');
    const attributes = new Map<string, string>();
    if (nameEnd >= 0) {
      for (const match of body.slice(nameEnd).matchAll(ATTRIBUTE)) attributes.set(localName(match[1]!), decodeXml(match[2] ?? match[3] ?? ''));
    }
    this.handler.open(localName(name), attributes, selfClosing);
    return close + 1;
  }
}
