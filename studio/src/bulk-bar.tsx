import { useState } from 'preact/hooks';
import { call } from './api';
import { editableFields, isRelation, isNumeric, type Collection } from './schema';
import { Confirm, Problems, useAction } from './ui';

/** What to do with the selected rows: delete them, or set one field on all of them. */
export function BulkBar({ collection, keys, onDone }: { collection: Collection; keys: string[]; onDone: () => void }) {
  const fields = editableFields(collection).filter((field) => !isRelation(field) && field.type !== 'password');
  const [field, setField] = useState(fields[0]?.name ?? '');
  const [value, setValue] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [busy, error, run] = useAction();
  const path = `${encodeURIComponent(collection.name)}`;
  const tk = JSON.stringify(keys.map((key) => (/^\d+$/.test(key) ? Number(key) : key)));
  const type = fields.find((candidate) => candidate.name === field)?.type ?? 'string';

  const update = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const parsed = value === '' ? null : type === 'json' || type === 'array' ? JSON.parse(value) : type === 'boolean' ? value === 'true' : isNumeric(type) ? Number(value) : value;
      await call('POST', `${path}:update`, { query: { filterByTk: tk }, body: { [field]: parsed } });
      onDone();
    });
  };
  return (
    <div class="card bulk" role="region" aria-label="Selected rows">
      <strong>{keys.length} selected</strong>
      <button type="button" class="danger" onClick={() => setConfirming(true)}>Delete selected</button>
      {confirming && (
        <Confirm action={`Delete ${keys.length}`} message={<p>Delete {keys.length} {collection.name} rows ({keys.join(', ')})?</p>} onCancel={() => setConfirming(false)}
          onConfirm={() => void run(async () => {
            await call('POST', `${path}:destroy`, { query: { filterByTk: tk } });
            setConfirming(false);
            onDone();
          })} />
      )}
      <form class="inline" onSubmit={update}>
        <label>Set field<select value={field} onChange={(e) => setField(e.currentTarget.value)}>{fields.map((candidate) => <option>{candidate.name}</option>)}</select></label>
        <label>to<input value={value} onInput={(e) => setValue(e.currentTarget.value)} /></label>
        <button type="submit" disabled={busy}>Update selected</button>
      </form>
      <Problems error={error} />
    </div>
  );
}
