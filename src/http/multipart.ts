import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import type { UploadPart } from '../request/api-request.js';

/** Most non-file fields before the file part, and the longest of them. */
const MAX_FIELDS = 20;
const MAX_FIELD_BYTES = 64 * 1024;

/**
 * multipart/form-data bodies (uploads, imports): parsed by @fastify/multipart as the action reads
 * them (`request.file()`, `request.parts()`), never buffered. The file size is not limited here:
 * each action counts bytes against its own limit (CORRAL_UPLOAD_MAX_BYTES for uploads).
 */
export function registerMultipart(app: FastifyInstance): void {
  void app.register(multipart, {
    limits: { fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, fileSize: Number.MAX_SAFE_INTEGER },
    throwFileSizeLimit: false,
  });
}

/** The first file part of a multipart request (fields before it are skipped), or undefined; a malformed body is 400 BODY_INVALID. */
export function firstFilePart(request: FastifyRequest): () => Promise<UploadPart | undefined> {
  return async () => {
    let file;
    try {
      file = await request.file();
    } catch (error) {
      throw new ApiError('BODY_INVALID', 'the multipart/form-data body is malformed', { cause: error });
    }
    if (file === undefined) return undefined;
    return { field: file.fieldname, filename: file.filename, mimetype: file.mimetype, stream: file.file };
  };
}
