import { useState } from 'preact/hooks';
import { call } from './api';
import { href, onLink } from './router';
import { isRelation, RELATION_TYPES, SCALAR_TYPES, type Collection, type Field } from './schema';
import { Confirm, FieldError, fieldErrorsOf, Problems, useAction } from './ui';

interface Draft {
  name: string;
  type: string;
  target: string;
  foreignKey: string;
  otherKey: string;
  through: string;
  onDelete: string;
  length: string;
  defaultValue: string;
  allowNull: boolean;
  unique: boolean;
  index: boolean;
  searchable: boolean;
  /** attachment: several files (true) or one. */
  multiple: boolean;
}

const EMPTY: Draft = { name: '', type: 'string', target: '', foreignKey: '', otherKey: '', through: '', onDelete: '', length: '', defaultValue: '', allowNull: true, unique: false, index: false, searchable: false, multiple: true };

/** The definition a draft stands for, without the options left blank. */
function definitionOf(draft: Draft): Record<string, unknown> {
  const out: Record<string, unknown> = { name: draft.name, type: draft.type };
  if (RELATION_TYPES.includes(draft.type as never)) {
    out.target = draft.target;
    if (draft.foreignKey !== '') out.foreignKey = draft.foreignKey;
    if (draft.type === 'belongsToMany') {
      if (draft.otherKey !== '') out.otherKey = draft.otherKey;
      if (draft.through !== '') out.through = draft.through;
    }
    if (draft.onDelete !== '') out.onDelete = draft.onDelete;
    return out;
  }
  if (draft.type === 'attachment') {
    out.multiple = draft.multiple;
    if (!draft.allowNull) out.allowNull = false;
    return out;
  }
  if (draft.type === 'string' && draft.length !== '') out.length = Number(draft.length);
  if (draft.defaultValue !== '') {
    const text = draft.defaultValue;
    out.defaultValue = draft.type === 'boolean' ? text === 'true' : ['integer', 'bigInt', 'float', 'double'].includes(draft.type) ? Number(text) : draft.type === 'json' || draft.type === 'array' ? JSON.parse(text) : text;
  }
  if (!draft.allowNull) out.allowNull = false;
  if (draft.unique) out.unique = true;
  if (draft.index) out.index = true;
  if (draft.searchable && (draft.type === 'string' || draft.type === 'text')) out.searchable = true;
  return out;
}

/** Key names of a relation as the server resolved them. */
function keysOf(field: Field): string {
  if (!isRelation(field)) return '';
  const parts = [`→ ${field.target}`];
  if (field.foreignKey !== undefined) parts.push(`foreign key ${field.foreignKey}`);
  if (field.through !== undefined) parts.push(`through ${field.through}`);
  if (field.otherKey !== undefined) parts.push(`other key ${field.otherKey}`);
  if (field.onDelete !== undefined) parts.push(`on delete ${field.onDelete}`);
  return parts.join(', ');
}

function flags(field: Field): string {
  const out: string[] = [];
  if (field.primaryKey) out.push('primary key');
  if (field.allowNull === false && !field.primaryKey) out.push('required');
  if (field.unique) out.push('unique');
  if (field.index) out.push('index');
  if (field.searchable) out.push('searchable');
  if (field.system !== undefined) out.push('system');
  if (field.builtIn === true && field.system === undefined) out.push('built-in');
  return out.join(', ');
}

/** A collection's fields: add (every type, relations with their target), edit, rename, drop. */
export function FieldsScreen({ collection, collections, onChanged }: { collection: Collection; collections: Collection[]; onChanged: () => Promise<void> }) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [editing, setEditing] = useState<string | null>(null);
  const [dropping, setDropping] = useState<string | null>(null);
  const [busy, error, run] = useAction();
  const fieldErrors = fieldErrorsOf(error);
  const base = `collections/${encodeURIComponent(collection.name)}/fields`;
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const relation = RELATION_TYPES.includes(draft.type as never);

  const save = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      if (editing === null) await call('POST', `${base}:create`, { body: definitionOf(draft) });
      else {
        const body = definitionOf(draft);
        delete body.type;
        if (isRelation({ name: '', type: draft.type })) {
          delete body.target;
          delete body.foreignKey;
          delete body.otherKey;
          delete body.through;
        }
        await call('POST', `${base}:update/${encodeURIComponent(editing)}`, { body });
      }
      setDraft(EMPTY);
      setEditing(null);
      await onChanged();
    });
  };
  const edit = (field: Field) => {
    setEditing(field.name);
    setDraft({
      ...EMPTY,
      name: field.name,
      type: field.type,
      target: field.target ?? '',
      onDelete: field.onDelete ?? '',
      length: field.length === undefined ? '' : String(field.length),
      defaultValue: field.defaultValue === undefined || field.defaultValue === null ? '' : typeof field.defaultValue === 'object' ? JSON.stringify(field.defaultValue) : String(field.defaultValue),
      allowNull: field.allowNull !== false,
      unique: field.unique === true,
      index: field.index === true,
      searchable: field.searchable === true,
      multiple: field.multiple !== false,
    });
  };
  const drop = (name: string) =>
    void run(async () => {
      await call('POST', `${base}:destroy/${encodeURIComponent(name)}`);
      setDropping(null);
      await onChanged();
    });

  return (
    <section aria-labelledby="fields-title">
      <p class="crumbs"><a href={href('collections')} onClick={onLink}>Collections</a> / <a href={href('collections', collection.name)} onClick={onLink}>{collection.name}</a></p>
      <h1 id="fields-title">Fields of {collection.name}</h1>
      <Problems error={error} shown={["name"]} />
      <div class="table-wrap">
        <table class="grid">
          <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Options</th><th scope="col">Keys</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {collection.fields.map((field) => (
              <tr key={field.name} data-field={field.name}>
                <td>{field.name}</td>
                <td>{field.type}</td>
                <td>{flags(field)}</td>
                <td>{keysOf(field)}</td>
                <td class="actions">
                  {field.system === undefined && !field.primaryKey && field.builtIn !== true && (
                    <>
                      <button type="button" onClick={() => edit(field)} aria-label={`Edit field ${field.name}`}>Edit</button>
                      <button type="button" class="danger" onClick={() => setDropping(field.name)} aria-label={`Drop field ${field.name}`}>Drop</button>
                    </>
                  )}
                  {dropping === field.name && (
                    <Confirm action={`Drop ${field.name}`} message={<p>Drop field <strong>{field.name}</strong> and its values in every row of {collection.name}?</p>} onConfirm={() => drop(field.name)} onCancel={() => setDropping(null)} />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form onSubmit={save} class="card" aria-labelledby="field-form-title">
        <h2 id="field-form-title">{editing === null ? 'Add a field' : `Edit field ${editing}`}</h2>
        <div class="row">
          <label>Field name<input name="fieldName" required value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} aria-describedby="field-name-error" /></label>
          <label>Type
            <select name="fieldType" value={draft.type} disabled={editing !== null} onChange={(e) => set({ type: e.currentTarget.value })}>
              <optgroup label="Values">{SCALAR_TYPES.map((type) => <option value={type}>{type}</option>)}</optgroup>
              <optgroup label="Relations">{RELATION_TYPES.map((type) => <option value={type}>{type}</option>)}</optgroup>
              <optgroup label="Files"><option value="attachment">attachment</option></optgroup>
            </select>
          </label>
        </div>
        <FieldError id="field-name-error" message={fieldErrors.name} />
        {relation ? (
          <div class="row">
            <label>Target collection
              <select name="target" required value={draft.target} disabled={editing !== null} onChange={(e) => set({ target: e.currentTarget.value })}>
                <option value="">choose…</option>
                {collections.map((candidate) => <option value={candidate.name}>{candidate.name}</option>)}
              </select>
            </label>
            {editing === null && <label>Foreign key<input name="foreignKey" placeholder="default" value={draft.foreignKey} onInput={(e) => set({ foreignKey: e.currentTarget.value })} /></label>}
            {editing === null && draft.type === 'belongsToMany' && (
              <>
                <label>Through table<input name="through" placeholder="default" value={draft.through} onInput={(e) => set({ through: e.currentTarget.value })} /></label>
                <label>Other key<input name="otherKey" placeholder="default" value={draft.otherKey} onInput={(e) => set({ otherKey: e.currentTarget.value })} /></label>
              </>
            )}
            <label>On delete
              <select name="onDelete" value={draft.onDelete} onChange={(e) => set({ onDelete: e.currentTarget.value })}>
                <option value="">default</option><option>SET NULL</option><option>CASCADE</option><option>RESTRICT</option>
              </select>
            </label>
          </div>
        ) : draft.type === 'attachment' ? (
          <div class="row">
            <label class="check"><input type="checkbox" checked={draft.multiple} onChange={(e) => set({ multiple: e.currentTarget.checked })} />Several files</label>
            <label class="check"><input type="checkbox" checked={!draft.allowNull} onChange={(e) => set({ allowNull: !e.currentTarget.checked })} />Required</label>
          </div>
        ) : (
          <div class="row">
            {draft.type === 'string' && <label>Length<input name="length" type="number" min={1} value={draft.length} onInput={(e) => set({ length: e.currentTarget.value })} /></label>}
            <label>Default value<input name="defaultValue" value={draft.defaultValue} onInput={(e) => set({ defaultValue: e.currentTarget.value })} /></label>
            <label class="check"><input type="checkbox" checked={!draft.allowNull} onChange={(e) => set({ allowNull: !e.currentTarget.checked })} />Required</label>
            <label class="check"><input type="checkbox" checked={draft.unique} onChange={(e) => set({ unique: e.currentTarget.checked })} />Unique</label>
            <label class="check"><input type="checkbox" checked={draft.index} onChange={(e) => set({ index: e.currentTarget.checked })} />Index</label>
            {(draft.type === 'string' || draft.type === 'text') && <label class="check"><input type="checkbox" checked={draft.searchable} onChange={(e) => set({ searchable: e.currentTarget.checked })} />Searchable</label>}
          </div>
        )}
        <button type="submit" class="primary" disabled={busy}>{editing === null ? 'Add field' : 'Save field'}</button>
        {editing !== null && <button type="button" onClick={() => { setEditing(null); setDraft(EMPTY); }}>Cancel</button>}
      </form>
    </section>
  );
}
