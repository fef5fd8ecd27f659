import { useEffect, useState } from 'preact/hooks';
import { call } from './api';
import { AttachmentInput, attachedOf, holdsMany, isAttachment } from './attachments';
import { RelationPicker, type Picked } from './relation-picker';
import { display, editableFields, isNumeric, isRelation, labelField, type Collection, type Field } from './schema';
import { FieldError, fieldErrorsOf, Problems, useAction } from './ui';

type Values = Record<string, string | boolean | Picked[]>;

/** `2026-01-02T03:04:05.000Z` as a datetime-local value in the browser's zone. */
function localInput(iso: unknown): string {
  if (typeof iso !== 'string' || iso === '') return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function initial(field: Field, row: Record<string, unknown> | null, collections: Collection[]): string | boolean | Picked[] {
  const value = row?.[field.name];
  if (isAttachment(field)) return attachedOf(value).map((file) => ({ key: file.id, label: file.filename ?? String(file.id) }));
  if (isRelation(field)) {
    const target = collections.find((candidate) => candidate.name === field.target);
    const key = target?.filterTargetKey ?? 'id';
    const label = target === undefined ? key : labelField(target);
    const rows = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
    return (rows as Record<string, unknown>[]).map((related) => ({ key: related[key], label: display(related[label] ?? related[key]) }));
  }
  if (field.type === 'boolean') return value === true;
  if (field.type === 'date') return localInput(value);
  if (field.type === 'json' || field.type === 'array') return value === undefined || value === null ? '' : JSON.stringify(value, null, 1);
  if (field.type === 'password') return '';
  return display(value);
}

/** Checks one value the way the server will, so most mistakes show before sending. */
function check(field: Field, value: string | boolean | Picked[]): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return field.allowNull === false && field.defaultValue === undefined && field.type !== 'password' ? `${field.name} is required` : undefined;
  if (isNumeric(field.type) || field.type === 'decimal') {
    const number = Number(text);
    if (Number.isNaN(number)) return `${field.name} must be a number`;
    if ((field.type === 'integer' || field.type === 'bigInt' || field.type === 'sort') && !Number.isInteger(number)) return `${field.name} must be an integer`;
    if (field.min !== undefined && number < field.min) return `${field.name} must be at least ${field.min}`;
    if (field.max !== undefined && number > field.max) return `${field.name} must be at most ${field.max}`;
  }
  if (field.type === 'json' || field.type === 'array') {
    try {
      const parsed: unknown = JSON.parse(text);
      if (field.type === 'array' && !Array.isArray(parsed)) return `${field.name} must be a JSON array`;
    } catch {
      return `${field.name} must be valid JSON`;
    }
  }
  if (field.minLength !== undefined && text.length < field.minLength) return `${field.name} must have at least ${field.minLength} characters`;
  if (field.maxLength !== undefined && text.length > field.maxLength) return `${field.name} must have at most ${field.maxLength} characters`;
  if (field.length !== undefined && field.type === 'string' && text.length > field.length) return `${field.name} must have at most ${field.length} characters`;
  return undefined;
}

function wire(field: Field, value: string | boolean | Picked[]): unknown {
  if (Array.isArray(value) && isAttachment(field)) return holdsMany(field) ? value.map((picked) => picked.key) : (value[0]?.key ?? null);
  if (Array.isArray(value)) return field.type === 'hasMany' || field.type === 'belongsToMany' ? value.map((picked) => picked.key) : (value[0]?.key ?? null);
  if (typeof value === 'boolean') return value;
  if (value.trim() === '') return null;
  if (field.type === 'json' || field.type === 'array') return JSON.parse(value);
  if (field.type === 'date') return new Date(value).toISOString();
  if (isNumeric(field.type) && field.type !== 'bigInt') return Number(value);
  return value;
}

/** Creates or edits one record: an input per field, errors (ours and the API's) in place. */
export function RecordForm({ collection, collections, recordKey, onDone }: { collection: Collection; collections: Collection[]; recordKey: unknown; onDone: (saved: boolean) => void }) {
  const fields = editableFields(collection);
  const relations = fields.filter((field) => isRelation(field) || isAttachment(field));
  const [values, setValues] = useState<Values | null>(recordKey === undefined ? Object.fromEntries(fields.map((field) => [field.name, initial(field, null, collections)])) : null);
  const [local, setLocal] = useState<Record<string, string>>({});
  const [busy, error, run] = useAction();
  const path = encodeURIComponent(collection.name);

  useEffect(() => {
    if (recordKey === undefined) return;
    void run(async () => {
      const answer = await call<Record<string, unknown>>('GET', `${path}:get`, { query: { filterByTk: String(recordKey), appends: relations.map((field) => field.name) } });
      setValues(Object.fromEntries(fields.map((field) => [field.name, initial(field, answer.data, collections)])));
    });
  }, [recordKey]);

  if (values === null) return <Problems error={error} />;
  const apiErrors = fieldErrorsOf(error);

  const submit = (event: Event) => {
    event.preventDefault();
    const problems: Record<string, string> = {};
    for (const field of fields) {
      const problem = check(field, values[field.name]!);
      if (problem !== undefined) problems[field.name] = problem;
    }
    setLocal(problems);
    if (Object.keys(problems).length > 0) return;
    const body: Record<string, unknown> = {};
    for (const field of fields) {
      const value = values[field.name]!;
      if (field.type === 'password' && value === '') continue;
      body[field.type === 'belongsTo' && !isAttachment(field) ? (field.foreignKey ?? `${field.name}Id`) : field.name] = wire(field, value);
    }
    void run(async () => {
      if (recordKey === undefined) await call('POST', `${path}:create`, { body });
      else await call('POST', `${path}:update`, { query: { filterByTk: String(recordKey) }, body });
      onDone(true);
    });
  };

  const set = (name: string, value: string | boolean | Picked[]) => setValues({ ...values, [name]: value });
  return (
    <form onSubmit={submit} class="card record-form" aria-labelledby="record-form-title" noValidate>
      <h2 id="record-form-title">{recordKey === undefined ? `New ${collection.name} record` : `Edit ${collection.name} ${String(recordKey)}`}</h2>
      <Problems error={error} shown={fields.flatMap((field) => (field.type === 'belongsTo' && field.foreignKey !== undefined ? [field.name, field.foreignKey] : [field.name]))} />
      {fields.map((field) => {
        const id = `field-${field.name}`;
        const message = local[field.name] ?? apiErrors[field.name] ?? (field.type === 'belongsTo' && field.foreignKey !== undefined ? apiErrors[field.foreignKey] : undefined);
        const errorId = `${id}-error`;
        const value = values[field.name]!;
        const common = { id, name: field.name, 'aria-invalid': message !== undefined, 'aria-describedby': message === undefined ? undefined : errorId };
        let input;
        if (isAttachment(field)) {
          input = <AttachmentInput id={id} label={field.name} many={holdsMany(field)} value={value as Picked[]} onChange={(picked) => set(field.name, picked)} {...(message === undefined ? {} : { describedBy: errorId })} />;
          return <div class="form-field">{input}<FieldError id={errorId} message={message} /></div>;
        }
        if (isRelation(field)) {
          const target = collections.find((candidate) => candidate.name === field.target);
          input = target === undefined ? <span>unknown target {field.target}</span> : (
            <RelationPicker id={id} label={field.name} target={target} multiple={field.type === 'hasMany' || field.type === 'belongsToMany'} value={value as Picked[]} onChange={(picked) => set(field.name, picked)} {...(message === undefined ? {} : { describedBy: errorId })} />
          );
          return <div class="form-field">{input}<FieldError id={errorId} message={message} /></div>;
        }
        if (field.type === 'boolean') input = <input type="checkbox" {...common} checked={value as boolean} onChange={(e) => set(field.name, e.currentTarget.checked)} />;
        else if (field.type === 'text' || field.type === 'json' || field.type === 'array') input = <textarea rows={3} {...common} value={value as string} onInput={(e) => set(field.name, e.currentTarget.value)} />;
        else {
          const type = field.type === 'date' ? 'datetime-local' : field.type === 'dateOnly' ? 'date' : field.type === 'time' ? 'time' : field.type === 'password' ? 'password' : 'text';
          const inputMode = isNumeric(field.type) || field.type === 'decimal' ? 'decimal' : undefined;
          input = <input type={type} {...common} {...(inputMode === undefined ? {} : { inputMode })} value={value as string} onInput={(e) => set(field.name, e.currentTarget.value)} />;
        }
        return (
          <div class="form-field">
            <label for={id}>{field.name} <span class="muted">{field.type}{field.allowNull === false ? ', required' : ''}</span></label>
            {input}
            <FieldError id={errorId} message={message} />
          </div>
        );
      })}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>{recordKey === undefined ? 'Create record' : 'Save record'}</button>
        <button type="button" onClick={() => onDone(false)}>Cancel</button>
      </div>
    </form>
  );
}
