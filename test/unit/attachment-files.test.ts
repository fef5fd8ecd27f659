import { describe, expect, it } from 'vitest';
import { attachmentRelationInput, isAttachmentInput } from '../../src/schema/attachment-field.js';
import { contentDisposition, extnameOf, safeFilename } from '../../src/files/safe-filename.js';
import { isInlineType, sniffType } from '../../src/files/sniff-type.js';
import { acceptsType } from '../../src/schema/attachment-field.js';
import { KeyLocks } from '../../src/files/key-locks.js';
import { parseRange } from '../../src/request/byte-range.js';
import { JPEG, PDF, PNG, SVG } from '../support/multipart.js';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s/g, ''), 'hex');

describe('sniffType', () => {
  // [what, bytes, declared, type]
  const CASES: [string, Buffer, string | undefined, string][] = [
    ['PNG', PNG, 'text/plain', 'image/png'],
    ['JPEG', JPEG, undefined, 'image/jpeg'],
    ['GIF', Buffer.from('GIF89a\x01\x00', 'latin1'), undefined, 'image/gif'],
    ['WebP', Buffer.concat([Buffer.from('RIFF'), hex('24000000'), Buffer.from('WEBPVP8 ')]), undefined, 'image/webp'],
    ['PDF', PDF, 'image/png', 'application/pdf'],
    ['zip', hex('504b0304 14000000'), undefined, 'application/zip'],
    ['xlsx', Buffer.concat([hex('504b0304'), Buffer.from('....[Content_Types].xml....xl/workbook.xml')]), undefined, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ['docx', Buffer.concat([hex('504b0304'), Buffer.from('....word/document.xml')]), undefined, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['SVG with a declaration', SVG, 'image/png', 'image/svg+xml'],
    ['SVG after a comment and BOM', Buffer.from('\uFEFF<!-- x -->\n<svg>'), undefined, 'image/svg+xml'],
    ['HTML', Buffer.from('<!DOCTYPE html><html>'), 'text/plain', 'text/html'],
    ['a script tag', Buffer.from('  <script>alert(1)</script>'), 'text/plain', 'text/html'],
    ['XML', Buffer.from('<?xml version="1.0"?><a/>'), undefined, 'application/xml'],
    ['text, declared CSV', Buffer.from('a,b\n'), 'text/csv; charset=utf-8', 'text/csv'],
    ['text, declared HTML (not believed)', Buffer.from('hello'), 'text/html', 'text/plain'],
    ['UTF-8 text cut mid-character', Buffer.from('héllo wörld €').subarray(0, 15), undefined, 'text/plain'],
    ['empty', Buffer.alloc(0), undefined, 'text/plain'],
    ['binary', hex('00 01 02 ff fe'), 'image/png', 'application/octet-stream'],
    ['Latin-1 bytes', Buffer.from('caf\xe9 cr\xe8me', 'latin1'), 'text/plain', 'application/octet-stream'],
  ];
  for (const [what, bytes, declared, type] of CASES) it(`types ${what} as ${type}`, () => expect(sniffType(bytes, declared)).toBe(type));

  it('matches accept lists by exact type and family', () => {
    expect(acceptsType(undefined, 'text/html')).toBe(true);
    expect(acceptsType(['image/*'], 'image/png')).toBe(true);
    expect(acceptsType(['image/*'], 'application/pdf')).toBe(false);
    expect(acceptsType(['application/pdf'], 'application/pdf')).toBe(true);
    expect(acceptsType(['*/*'], 'text/plain')).toBe(true);
  });

  it('serves inline only what runs nothing', () => {
    for (const type of ['image/png', 'image/jpeg', 'application/pdf', 'text/plain']) expect(isInlineType(type)).toBe(true);
    for (const type of ['image/svg+xml', 'text/html', 'application/xml', 'text/javascript', 'application/octet-stream', 'text/csv']) expect(isInlineType(type)).toBe(false);
  });
});

describe('safeFilename and Content-Disposition', () => {
  const CASES: [string | undefined, string][] = [
    [undefined, 'file'],
    ['a/b/c.txt', 'c.txt'],
    ['a\\b\\c.txt', 'c.txt'],
    ['\u0000x\u001f.txt', 'x.txt'],
    ['a\u202etxt.exe', 'atxt.exe'],
    ['  .env  ', 'env'],
    ['cafe\u0301.png', 'café.png'],
  ];
  for (const [given, safe] of CASES) it(`makes ${JSON.stringify(given)} ${JSON.stringify(safe)}`, () => expect(safeFilename(given)).toBe(safe));

  it('keeps at most 255 characters, the extension included', () => {
    const long = safeFilename(`${'é'.repeat(300)}.jpeg`);
    expect([...long]).toHaveLength(255);
    expect(long.endsWith('.jpeg')).toBe(true);
  });

  it('finds sensible extensions only', () => {
    expect(extnameOf('a.PNG')).toBe('.png');
    expect(extnameOf('noext')).toBeUndefined();
    expect(extnameOf('trailing.')).toBeUndefined();
    expect(extnameOf('a.b c')).toBeUndefined();
  });

  it('quotes nothing a header could break on', () => {
    expect(contentDisposition('attachment', 'a"b\\c;d.txt')).toBe(`attachment; filename="a_b_c;d.txt"; filename*=UTF-8''a%22b%5Cc%3Bd.txt`);
    expect(contentDisposition('inline', "it's (1).pdf")).toBe(`inline; filename="it's (1).pdf"; filename*=UTF-8''it%27s%20%281%29.pdf`);
  });
});

describe('parseRange', () => {
  const CASES: [string | undefined, number, ReturnType<typeof parseRange>][] = [
    [undefined, 10, { kind: 'whole' }],
    ['bytes=0-0', 10, { kind: 'range', range: { start: 0, end: 0 } }],
    ['bytes=2-', 10, { kind: 'range', range: { start: 2, end: 9 } }],
    ['bytes=-4', 10, { kind: 'range', range: { start: 6, end: 9 } }],
    ['bytes=-40', 10, { kind: 'range', range: { start: 0, end: 9 } }],
    ['bytes=5-500', 10, { kind: 'range', range: { start: 5, end: 9 } }],
    ['bytes=10-', 10, { kind: 'unsatisfiable' }],
    ['bytes=-0', 10, { kind: 'unsatisfiable' }],
    ['bytes=0-', 0, { kind: 'unsatisfiable' }],
    ['bytes=5-2', 10, { kind: 'whole' }],
    ['bytes=0-1,3-4', 10, { kind: 'whole' }],
    ['pages=1-2', 10, { kind: 'whole' }],
    ['bytes=99999999999999999999-', 10, { kind: 'whole' }],
  ];
  for (const [header, size, expected] of CASES) it(`reads ${String(header)} of ${size} bytes`, () => expect(parseRange(header, size)).toEqual(expected));
});

describe('attachment field definitions', () => {
  it('recognises both spellings', () => {
    expect(isAttachmentInput({ name: 'f', type: 'attachment' })).toBe(true);
    expect(isAttachmentInput({ name: 'f', type: 'belongsToMany', target: 'attachments', interface: 'attachment' })).toBe(true);
    expect(isAttachmentInput({ name: 'f', type: 'belongsToMany', target: 'attachments' })).toBe(false);
  });

  it('becomes a belongsToMany through its own junction', () => {
    expect(attachmentRelationInput({ name: 'photos', type: 'attachment', multiple: false, accept: 'image/png, IMAGE/*' }, 'posts')).toEqual({
      relation: { name: 'photos', type: 'belongsToMany', target: 'attachments', interface: 'attachment', through: 'posts_photos', onDelete: 'CASCADE' },
      options: { multiple: false, accept: ['image/png', 'image/*'] },
    });
  });

  for (const [what, input] of [
    ['multiple not a boolean', { multiple: 'yes' }],
    ['accept with a bad type', { accept: ['png'] }],
    ['an empty accept', { accept: [] }],
    ['another target', { target: 'users' }],
  ] as const) {
    it(`refuses ${what} with SCHEMA_INVALID`, () => {
      expect(() => attachmentRelationInput({ name: 'f', type: 'attachment', ...input }, 'posts')).toThrow(expect.objectContaining({ code: 'SCHEMA_INVALID' }));
    });
  }
});

describe('KeyLocks', () => {
  it('runs the work of one key one at a time, and other keys alongside', async () => {
    const locks = new KeyLocks();
    const order: string[] = [];
    let release!: () => void;
    const first = locks.run('k', async () => {
      order.push('first start');
      await new Promise<void>((resolve) => (release = resolve));
      order.push('first end');
    });
    const second = locks.run('k', async () => order.push('second'));
    await locks.run('other', async () => order.push('other'));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first start', 'other', 'first end', 'second']);
  });

  it('goes on after a failing piece of work', async () => {
    const locks = new KeyLocks();
    await expect(locks.run('k', async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(await locks.run('k', async () => 1)).toBe(1);
  });
});
