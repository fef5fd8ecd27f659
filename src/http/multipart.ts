import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { UploadBody, UploadTooLarge, type UploadLimits, type UploadPart } from '../request/upload-body.js';

/**
 * multipart/form-data bodies (imports, uploads) through @fastify/multipart: the parser only
 * marks the request; the action reads the parts as a stream (`uploadBodyOf`), under its own limits.
 */
export function registerMultipart(app: FastifyInstance): void {
  void app.register(multipart, { throwFileSizeLimit: true });
}

/** The actions that read a multipart body; any other action answers such a body 415. */
export const UPLOAD_ACTIONS: ReadonlySet<string> = new Set(['import']);

/** The typed body of a multipart request to an action that takes one, or undefined for any other request. */
export function uploadBodyOf(request: FastifyRequest, action: string): UploadBody | undefined {
  if (!request.isMultipart()) return undefined;
  if (!UPLOAD_ACTIONS.has(action)) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `${action} takes application/json, not multipart/form-data`);
  return new UploadBody((limits) => partsOf(request, limits));
}

const TOO_LARGE_CODES = new Set(['FST_FILES_LIMIT', 'FST_FIELDS_LIMIT', 'FST_PARTS_LIMIT']);

async function* partsOf(request: FastifyRequest, limits: UploadLimits): AsyncGenerator<UploadPart> {
  try {
    for await (const part of request.parts({ limits: { fileSize: limits.fileBytes, files: limits.files, fields: limits.fields, fieldSize: limits.fieldBytes } })) {
      if (part.type === 'file') {
        // busboy ends a file at the limit; @fastify/multipart then fails the stream with FST_REQ_FILE_TOO_LARGE.
        part.file.on('limit', () => part.file.destroy(new UploadTooLarge(limits.fileBytes)));
        yield { kind: 'file', name: part.fieldname, filename: part.filename, mimetype: part.mimetype, stream: part.file };
      } else {
        if (part.valueTruncated) throw new ApiError('PAYLOAD_TOO_LARGE', `the form field ${part.fieldname.slice(0, 40)} is larger than ${limits.fieldBytes} bytes`);
        yield { kind: 'field', name: part.fieldname, value: typeof part.value === 'string' ? part.value : String(part.value) };
      }
    }
  } catch (error) {
    if (error instanceof ApiError || error instanceof UploadTooLarge) throw error;
    const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : '';
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new UploadTooLarge(limits.fileBytes);
    if (TOO_LARGE_CODES.has(code)) throw new ApiError('PAYLOAD_TOO_LARGE', 'the multipart body holds more parts or bytes than this action takes');
    throw new ApiError('BODY_INVALID', 'the multipart body cannot be read', { cause: error });
  }
}
