import type { BuiltApp } from '../../src/app.js';
import { checkContract } from './contract-check.js';

/** A multipart/form-data body as a browser would send it (FormData encoded by undici). */
export async function multipartBody(parts: { name?: string; bytes: Uint8Array; filename?: string; type?: string }[], fields: Record<string, string> = {}): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const part of parts) form.append(part.name ?? 'file', new Blob([part.bytes], part.type === undefined ? {} : { type: part.type }), part.filename ?? 'file.bin');
  const response = new Response(form);
  return { body: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type')! };
}

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  raw: Buffer;
  json: any;
}

/** Sends a request with raw bytes through inject (uploads, downloads). */
export async function send(built: BuiltApp, method: string, url: string, headers: Record<string, string>, body?: Buffer): Promise<RawReply> {
  const reply = await built.app.inject({ method: method as 'GET', url, headers, ...(body === undefined ? {} : { payload: body }) });
  let json: unknown;
  try {
    json = JSON.parse(reply.body);
  } catch {
    json = undefined;
  }
  // JSON answers (upload rows, errors) must match the OpenAPI document, as every test request's do.
  const contentType = reply.headers['content-type'];
  checkContract(method, url, reply.statusCode, typeof contentType === 'string' ? contentType : undefined, json, built.schema.snapshot, '/api');
  return { status: reply.statusCode, headers: reply.headers, raw: reply.rawPayload, json };
}

/** Uploads one file to `url` (attachments:create or an attachment field's create). */
export async function upload(built: BuiltApp, url: string, auth: Record<string, string>, file: { bytes: Uint8Array; filename?: string; type?: string; name?: string }): Promise<RawReply> {
  const { body, contentType } = await multipartBody([file]);
  return send(built, 'POST', url, { ...auth, 'content-type': contentType }, body);
}

/** The smallest PNG (1×1), and other magic-byte samples. */
export const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082', 'hex');
export const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
export const PDF = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1');
export const SVG = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
