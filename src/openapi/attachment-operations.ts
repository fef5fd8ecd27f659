import { isAttachmentRelation } from '../schema/attachment-field.js';
import type { Collection } from '../schema/collection.js';
import { keySchemaName } from './collection-schemas.js';
import { ref, type JsonSchema } from './json-schema.js';
import { DOWNLOAD_ERROR_STATUSES, errorResponses, IF_NONE_MATCH } from './responses.js';

/** An upload's body (docs/files.md): the file in a part named `file`, streamed. */
export const UPLOAD_BODY: JsonSchema = {
  required: true,
  description: 'multipart/form-data with the file in a part named `file`; its type is read from its bytes (the part\'s Content-Type is not believed); larger than CORRAL_UPLOAD_MAX_BYTES is 413 FILE_TOO_LARGE; a type outside the field\'s `accept` is 415 FILE_TYPE_NOT_ALLOWED',
  content: {
    'multipart/form-data': {
      schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'the file (its filename is kept, sanitised)' } } },
      encoding: { file: { contentType: '*/*' } },
    },
  },
};

/** `attachments:create?attachmentField=<collection>.<field>`: the upload follows that field's `accept`. */
export const ATTACHMENT_FIELD_PARAMETER: JsonSchema = {
  name: 'attachmentField',
  in: 'query',
  required: false,
  description: 'an attachment field as `<collection>.<field>`: the upload is checked against its `accept` list',
  schema: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_]*$' },
};

const BYTES: JsonSchema = { type: 'string', contentMediaType: 'application/octet-stream' };
const DOWNLOAD_HEADERS: Record<string, JsonSchema> = {
  ETag: { description: 'strong: `"<sha256>"` of the bytes', schema: { type: 'string' } },
  'Content-Disposition': { description: '`inline` for raster images, PDF and plain text, else `attachment`; filename and RFC 5987 filename*', schema: { type: 'string' } },
  'Accept-Ranges': { schema: { type: 'string', enum: ['bytes'] } },
  'Content-Length': { schema: { type: 'integer', minimum: 0 } },
};

/** `GET /api/attachments/{id}/content`: the bytes, under the owning records' grants. */
export function contentOperation(attachments: Collection): JsonSchema {
  return {
    operationId: `${attachments.name}.content.get`,
    summary: 'Download a file: its bytes, one byte range, or 304 (readable when a record it is linked to is; an unlinked one by its uploader; else 404)',
    tags: [attachments.name],
    parameters: [
      { name: 'id', in: 'path', required: true, description: 'key of the attachment', schema: ref(keySchemaName(attachments.name)) },
      { name: 'Range', in: 'header', required: false, description: 'one range, `bytes=<first>-<last>`, `bytes=<first>-` or `bytes=-<suffix>`; several ranges get the whole file', schema: { type: 'string' } },
      IF_NONE_MATCH,
    ],
    responses: {
      200: { description: 'the whole file, with its stored type', headers: DOWNLOAD_HEADERS, content: { '*/*': { schema: BYTES } } },
      206: { description: 'one range of the file', headers: { ...DOWNLOAD_HEADERS, 'Content-Range': { description: '`bytes <first>-<last>/<size>`', schema: { type: 'string' } } }, content: { '*/*': { schema: BYTES } } },
      304: { description: 'Not modified: If-None-Match named the current tag (no body)', headers: { ETag: DOWNLOAD_HEADERS.ETag! } },
      ...errorResponses(DOWNLOAD_ERROR_STATUSES),
    },
  };
}

/** The operations of the document that take an upload instead of a JSON body: attachments:create and each attachment field's create. */
export function uploadPaths(prefix: string, collections: readonly Collection[]): { path: string; withField: boolean }[] {
  const out: { path: string; withField: boolean }[] = [{ path: `${prefix}/attachments:create`, withField: true }];
  for (const collection of collections) {
    for (const relation of collection.relations.values()) {
      if (relation.type === 'belongsToMany' && isAttachmentRelation(relation.def)) out.push({ path: `${prefix}/${collection.name}/{sourceKey}/${relation.name}:create`, withField: false });
    }
  }
  return out;
}
