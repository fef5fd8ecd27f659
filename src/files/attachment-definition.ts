import { ATTACHMENTS } from '../schema/attachment-field.js';
import { SYSTEM_COLLECTION_TABLES } from '../schema/system-collection-tables.js';

export { ATTACHMENTS };

/** Longest stored filename, in characters (a longer one is cut, keeping its extension). */
export const MAX_FILENAME_LENGTH = 255;

/**
 * The `attachments` system collection: one row per uploaded file, its bytes in the storage
 * under `path` (the content key). `createdById` is the uploader; `url` is where it downloads,
 * written with the row. Created at first start with the other system collections.
 */
export const ATTACHMENTS_DEFINITION = {
  name: ATTACHMENTS,
  tableName: SYSTEM_COLLECTION_TABLES.attachments,
  createdBy: true,
  fields: [
    { name: 'filename', type: 'string', length: MAX_FILENAME_LENGTH, allowNull: false },
    { name: 'extname', type: 'string', length: 32 },
    { name: 'mimetype', type: 'string', length: 255, allowNull: false },
    { name: 'size', type: 'bigInt', allowNull: false },
    { name: 'sha256', type: 'string', length: 64, allowNull: false },
    { name: 'storage', type: 'string', length: 32, allowNull: false },
    { name: 'path', type: 'string', length: 255, allowNull: false, index: true },
    { name: 'url', type: 'string', length: 255 },
  ],
} as const;

/** Where an attachment downloads, under the API prefix. */
export function attachmentUrl(prefix: string, id: unknown): string {
  return `${prefix}/${ATTACHMENTS}/${encodeURIComponent(String(id))}/content`;
}
