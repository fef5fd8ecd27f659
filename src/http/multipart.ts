import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import type { UploadPart as FilePart } from '../request/api-request.js';
import { UploadBody, UploadTooLarge, type UploadLimits, type UploadPart } from '../request/upload-body.js';

/** Most non-file fields in a body, and the longest of them (an import's own limits may be lower). */
const MAX_FIELDS = 20;
const MAX_FIELD_BYTES = 64 * 1024;

/**
 * multipart/form-data bodies (uploads, imports) through @fastify/multipart: the parser only
 * marks the request; the action reads the parts as a stream, never buffered. The file size is
 * not limited here: each action counts bytes against its own limit (CORRAL_UPLOAD_MAX_BYTES for
 * uploads, CORRAL_IMPORT_MAX_BYTES for imports).
 */
export function registerMultipart(app: FastifyInstance): void {
  void app.register(multipart, {
    limits: { fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, fileSize: Number.MAX_SAFE_INTEGER },
    throwFileSizeLimit: false,
  });
}

/** Actions that read a multipart body as a whole form (`uploadBodyOf`). */
export const UPLOAD_ACTIONS: ReadonlySet<string> = new Set(['import']);
/** Actions that take one uploaded file (`firstFilePart`): an attachment's create, on its own or on an association. */
export const FILE_ACTIONS: ReadonlySet<string> = new Set(['create']);

/** The typed body of a multipart request to an action that takes one, or undefined for any other request; any other action answers such a body 415. */
export function uploadBodyOf(request: FastifyRequest, action: string): UploadBody | undefined {
  if (!request.isMultipart() || FILE_ACTIONS.has(action)) return undefined;
  if (!UPLOAD_ACTIONS.has(action)) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `${action} takes application/json, not multipart/form-data`);
  return new UploadBody((limits) => partsOf(request, limits));
}

const TOO_LARGE_CODES = new Set(['FST_FILES_LIMIT', 'FST_FIELDS_LIMIT', 'FST_PARTS_LIMIT']);

async function* partsOf(request: FastifyRequest, limits: UploadLimits): AsyncGenerator<UploadPart> {
  try {
    for await (const part of request.parts({ limits: { fileSize: limits.fileBytes, files: limits.files, fields: limits.fields, fieldSize: limits.fieldBytes } })) {
      if (part.type === 'file') {
        // busboy ends a file at the limit: the stream fails with UploadTooLarge.
        part.file.on('limit', () => part.file.destroy(new UploadTooLarge(limits.fileBytes)));
        yield { kind: 'file', name: part.fieldname, filename: part.filename, mimetype: part.mimetype, stream: part.file };
      } else {
        if (part.valueTruncated) throw new ApiError('FORM_TOO_LARGE', `the form field ${part.fieldname.slice(0, 40)} is larger than ${limits.fieldBytes} bytes`);
        yield { kind: 'field', name: part.fieldname, value: typeof part.value === 'string' ? part.value : String(part.value) };
      }
    }
  } catch (error) {
    if (error instanceof ApiError || error instanceof UploadTooLarge) throw error;
    const code = codeOf(error);
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new UploadTooLarge(limits.fileBytes);
    if (TOO_LARGE_CODES.has(code)) throw new ApiError('FORM_TOO_LARGE', 'the multipart body holds more parts or fields than this action takes');
    throw new ApiError('BODY_INVALID', 'the multipart body cannot be read', { cause: error });
  }
}

/** Form fields an upload may send before its file part (ignored), and the longest of them: docs/files.md. */
export const MAX_FIELDS_BEFORE_FILE = 256;
export const MAX_FIELD_BYTES_BEFORE_FILE = 4 * 1024;

/**
 * The first file part of a multipart request, or undefined. Up to MAX_FIELDS_BEFORE_FILE fields
 * of up to MAX_FIELD_BYTES_BEFORE_FILE bytes may come before it and are skipped; more, or a
 * longer one, is 413 FORM_TOO_LARGE; a malformed body is 400 BODY_INVALID (never the parser's words).
 */
export function firstFilePart(request: FastifyRequest): () => Promise<FilePart | undefined> {
  return async () => {
    try {
      // The parser keeps one field past the bound (it drops later ones silently and goes on to the file): seeing it is the refusal.
      const parts = request.parts({ limits: { fields: MAX_FIELDS_BEFORE_FILE + 1, fieldSize: MAX_FIELD_BYTES_BEFORE_FILE } });
      let fields = 0;
      for await (const part of parts) {
        if (part.type === 'file') return { field: part.fieldname, filename: part.filename, mimetype: part.mimetype, stream: part.file };
        fields += 1;
        if (part.valueTruncated || fields > MAX_FIELDS_BEFORE_FILE) throw formTooLarge();
      }
      return undefined;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (codeOf(error) === 'FST_FIELDS_LIMIT') throw formTooLarge();
      throw new ApiError('BODY_INVALID', 'the multipart/form-data body is malformed', { cause: error });
    }
  };
}

function formTooLarge(): ApiError {
  return new ApiError('FORM_TOO_LARGE', `an upload takes at most ${MAX_FIELDS_BEFORE_FILE} form fields of at most ${MAX_FIELD_BYTES_BEFORE_FILE} bytes before its file`, { details: { fields: MAX_FIELDS_BEFORE_FILE, fieldBytes: MAX_FIELD_BYTES_BEFORE_FILE } });
}

function codeOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : '';
}
