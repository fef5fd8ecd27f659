import { useState } from 'preact/hooks';
import type { Picked } from './relation-picker';
import type { Field } from './schema';
import { download, upload } from './transfer';
import { Problems, useAction } from './ui';

/** An attachment row as the API answers it (`attachments:create`, or appended to a record). */
export interface Attached {
  id: unknown;
  filename?: string;
  mimetype?: string;
  size?: number;
}

/** An attachment field: the `attachment` type, or a relation to the `attachments` collection. */
export function isAttachment(field: Field): boolean {
  return field.type === 'attachment' || (field.target === 'attachments' && (field.type === 'belongsToMany' || field.type === 'belongsTo' || field.type === 'hasMany'));
}

/** Whether the field holds several files. */
export function holdsMany(field: Field): boolean {
  return field.type === 'attachment' ? field.multiple !== false : field.type !== 'belongsTo';
}

export function attachedOf(value: unknown): Attached[] {
  const rows = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
  return rows.filter((row): row is Attached => typeof row === 'object' && row !== null && 'id' in row);
}

function sizeText(size: number | undefined): string {
  if (size === undefined) return '';
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}

/** A file's name as a button that downloads its bytes (the link needs the session's token). */
export function FileLink({ file }: { file: { id: unknown; filename?: string; label?: string; size?: number } }) {
  const [busy, error, run] = useAction();
  const name = file.filename ?? file.label ?? `file ${String(file.id)}`;
  return (
    <span class="file-link">
      <button type="button" class="link" disabled={busy} title={sizeText(file.size)} aria-label={`Download ${name}`} onClick={() => void run(async () => { await download(`attachments/${encodeURIComponent(String(file.id))}/content`, undefined, name); })}>{name}</button>
      <Problems error={error} />
    </span>
  );
}

/** The files of a record in a grid cell. */
export function AttachmentLinks({ value }: { value: unknown }) {
  return <>{attachedOf(value).map((file) => <FileLink file={file} />)}</>;
}

/** Picks files, uploads each to `attachments:create`, and keeps the attachments' keys for the record. */
export function AttachmentInput({ id, label, many, value, onChange, describedBy }: { id: string; label: string; many: boolean; value: Picked[]; onChange: (value: Picked[]) => void; describedBy?: string }) {
  const [busy, error, run] = useAction();
  const choose = (files: FileList | null) => {
    if (files === null || files.length === 0) return;
    const chosen = many ? [...files] : [files[0]!];
    void run(async () => {
      const added: Picked[] = [];
      for (const file of chosen) {
        const row = await upload<Attached>('attachments:create', file);
        added.push({ key: row.id, label: row.filename ?? file.name });
      }
      onChange(many ? [...value, ...added] : added);
    });
  };
  return (
    <fieldset class="attachments" aria-describedby={describedBy}>
      <legend>{label} <span class="muted">{many ? 'files' : 'file'}</span></legend>
      <ul>
        {value.map((picked) => (
          <li>
            <FileLink file={{ id: picked.key, label: picked.label }} />
            <button type="button" aria-label={`Remove ${picked.label}`} onClick={() => onChange(value.filter((other) => other !== picked))}>Remove</button>
          </li>
        ))}
      </ul>
      <label for={id}>{value.length > 0 && !many ? 'Replace file' : 'Upload'}</label>
      <input id={id} type="file" multiple={many} disabled={busy} onChange={(e) => { choose(e.currentTarget.files); e.currentTarget.value = ''; }} />
      {busy && <span role="status">uploading…</span>}
      <Problems error={error} />
    </fieldset>
  );
}
