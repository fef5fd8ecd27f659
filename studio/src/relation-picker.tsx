import { useEffect, useState } from 'preact/hooks';
import { call, messageOf } from './api';
import { display, labelField, type Collection } from './schema';

export interface Picked {
  key: unknown;
  label: string;
}

/** Finds rows of the target collection by their label field and keeps the chosen keys. */
export function RelationPicker({ id, label, target, multiple, value, onChange, describedBy }: {
  id: string;
  label: string;
  target: Collection;
  multiple: boolean;
  value: Picked[];
  onChange: (value: Picked[]) => void;
  describedBy?: string;
}) {
  const [text, setText] = useState('');
  const [found, setFound] = useState<Picked[]>([]);
  const [error, setError] = useState('');
  const key = target.filterTargetKey;
  const name = labelField(target);

  useEffect(() => {
    let cancelled = false;
    const filter = text.trim() === '' ? undefined : name === key ? { [key]: { $eq: text.trim() } } : { [name]: { $includes: text.trim() } };
    const timer = setTimeout(() => {
      call<Record<string, unknown>[]>('GET', `${encodeURIComponent(target.name)}:list`, { query: { filter, pageSize: 8, fields: name === key ? [key] : [key, name], sort: [key] } })
        .then((answer) => {
          if (cancelled) return;
          setFound(answer.data.map((row) => ({ key: row[key], label: display(row[name] ?? row[key]) })));
          setError('');
        })
        .catch((failure) => !cancelled && setError(messageOf(failure)));
    }, 150);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [text, target.name]);

  const chosen = new Set(value.map((picked) => String(picked.key)));
  const pick = (picked: Picked) => onChange(multiple ? [...value, picked] : [picked]);
  return (
    <div class="picker" role="group" aria-labelledby={`${id}-label`} {...(describedBy === undefined ? {} : { 'aria-describedby': describedBy })}>
      <span id={`${id}-label`} class="label">{label} <span class="muted">({target.name})</span></span>
      <ul class="chips" aria-label={`${label}: chosen`}>
        {value.map((picked) => (
          <li class="chip">
            {picked.label}
            <button type="button" aria-label={`Unlink ${picked.label} from ${label}`} onClick={() => onChange(value.filter((other) => String(other.key) !== String(picked.key)))}>×</button>
          </li>
        ))}
        {value.length === 0 && <li class="muted">none</li>}
      </ul>
      <label>
        <span class="visually-hidden">Search {target.name} for {label}</span>
        <input id={id} type="search" placeholder={`search ${target.name}…`} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </label>
      {error !== '' && <span class="field-error">{error}</span>}
      <ul class="options" aria-label={`${label}: matches`}>
        {found.filter((picked) => !chosen.has(String(picked.key))).map((picked) => (
          <li><button type="button" onClick={() => pick(picked)} aria-label={`Link ${picked.label} as ${label}`}>{picked.label}</button></li>
        ))}
      </ul>
    </div>
  );
}
