import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type Meta } from './api';
import { emptyGroup, FilterBuilder, filterPaths, toFilter, type Group } from './filter-builder';
import { subscribe } from './live';
import { RecordForm } from './record-form';
import { href, onLink } from './router';
import { AttachmentLinks, isAttachment } from './attachments';
import { ImportExport } from './import-export';
import { display, editableFields, isAppendable, isToOne, labelField, scalarFields, type Collection } from './schema';
import { BulkBar } from './bulk-bar';
import { Problems, useAction } from './ui';

type Row = Record<string, unknown>;
const PAGE_SIZES = [10, 20, 50, 100];

/** One collection's rows: paging, sorting, filtering, search, columns, form, bulk actions, live. */
export function RecordsScreen({ collection, collections }: { collection: Collection; collections: Collection[] }) {
  const key = collection.filterTargetKey;
  const toOne = collection.fields.filter(isToOne);
  // Foreign keys a belongsTo owns start hidden: the relation's label column shows them.
  const owned = new Set(collection.fields.filter((field) => field.type === 'belongsTo').map((field) => field.foreignKey));
  const [columns, setColumns] = useState<string[]>(() => scalarFields(collection).filter((field) => !owned.has(field.name)).map((field) => field.name));
  const [appends, setAppends] = useState<string[]>(() => [...toOne, ...collection.fields.filter(isAttachment)].map((field) => field.name));
  const [sort, setSort] = useState<string>('');
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const [cursorMode, setCursorMode] = useState(false);
  const [cursors, setCursors] = useState<string[]>(['']);
  const [builder, setBuilder] = useState<Group>(emptyGroup);
  const [filter, setFilter] = useState<Record<string, unknown> | undefined>(undefined);
  const [q, setQ] = useState('');
  const [rows, setRows] = useState<Row[]>([]);
  const [meta, setMeta] = useState<Meta>({});
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [form, setForm] = useState<{ key: unknown } | null>(null);
  const [live, setLive] = useState(false);
  const [showFilter, setShowFilter] = useState(false);
  const [showColumns, setShowColumns] = useState(false);
  const [, error, run] = useAction();
  const paths = filterPaths(collection, collections);
  const reloadRef = useRef<() => void>(() => undefined);

  // What the grid selects: its columns, each append's key and label (every column of a file).
  const appendedPaths = appends.flatMap((name) => {
    const field = collection.fields.find((candidate) => candidate.name === name);
    if (field !== undefined && isAttachment(field)) return [name];
    const target = collections.find((candidate) => candidate.name === field?.target);
    return target === undefined ? [] : [`${name}.${target.filterTargetKey}`, `${name}.${labelField(target)}`];
  });
  const selection = {
    fields: [...new Set([key, ...columns]), ...appendedPaths],
    appends,
    sort: sort === '' ? undefined : sort,
    filter,
    q: q.trim() === '' ? undefined : q.trim(),
  };
  // An export has one row per record: only to-one appends become columns.
  const exportQuery = {
    ...selection,
    fields: selection.fields.filter((path) => !appends.some((name) => (path === name || path.startsWith(`${name}.`)) && !toOne.some((field) => field.name === name))),
    appends: appends.filter((name) => toOne.some((field) => field.name === name)),
  };

  const load = () =>
    run(async () => {
      const query = {
        ...selection,
        pageSize,
        ...(cursorMode ? { cursor: cursors[page - 1] ?? '' } : { page }),
      };
      const answer = await call<Row[]>('GET', `${encodeURIComponent(collection.name)}:list`, { query });
      setRows(answer.data);
      setMeta(answer.meta ?? {});
      if (cursorMode && answer.meta?.nextCursor !== undefined) setCursors((known) => [...known.slice(0, page), answer.meta!.nextCursor!]);
    });
  reloadRef.current = () => void load();

  useEffect(() => void load(), [columns, appends, sort, page, pageSize, filter, q, cursorMode]);

  // A change anywhere (this tab, another client, another node) reloads the page shown.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = subscribe(collection.name, () => {
      clearTimeout(timer);
      timer = setTimeout(() => reloadRef.current(), 50);
    }, setLive);
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, [collection.name]);

  const sortBy = (path: string) => {
    setSort(sort === path ? `-${path}` : sort === `-${path}` ? '' : path);
    setPage(1);
    setCursors(['']);
  };
  const ariaSort = (path: string) => (sort === path ? 'ascending' : sort === `-${path}` ? 'descending' : undefined);
  const header = (path: string, label: string) => (
    <th scope="col" aria-sort={ariaSort(path)}>
      <button type="button" class="sort" onClick={() => sortBy(path)} aria-label={`Sort by ${label}`}>
        {label} <span aria-hidden="true">{sort === path ? '▲' : sort === `-${path}` ? '▼' : ''}</span>
      </button>
    </th>
  );
  const keyOf = (row: Row) => String(row[key]);
  const toggle = (row: Row) => {
    const next = new Set(selected);
    if (next.has(keyOf(row))) next.delete(keyOf(row));
    else next.add(keyOf(row));
    setSelected(next);
  };
  const resetPaging = () => {
    setPage(1);
    setCursors(['']);
  };
  const totalPage = meta.totalPage ?? 1;
  const canEdit = editableFields(collection).length > 0;

  return (
    <section aria-labelledby="records-title">
      <p class="crumbs"><a href={href('collections')} onClick={onLink}>Collections</a> / {collection.name} · <a href={href('collections', collection.name, 'fields')} onClick={onLink}>Fields</a></p>
      <h1 id="records-title">{collection.title ?? collection.name} <span class={live ? 'live on' : 'live'} data-live={live}>{live ? 'live' : 'offline'}</span></h1>
      <div class="toolbar">
        <form class="inline" role="search" onSubmit={(event) => { event.preventDefault(); resetPaging(); setQ((event.currentTarget.elements.namedItem('q') as HTMLInputElement).value); }}>
          <label><span class="visually-hidden">Search</span><input name="q" type="search" placeholder="search (q)" defaultValue={q} aria-label="Search" /></label>
          <button type="submit">Search</button>
        </form>
        <button type="button" aria-expanded={showFilter} onClick={() => setShowFilter(!showFilter)}>Filter{filter === undefined ? '' : ' •'}</button>
        <button type="button" aria-expanded={showColumns} onClick={() => setShowColumns(!showColumns)}>Columns</button>
        {canEdit && <button type="button" class="primary editing" onClick={() => setForm({ key: undefined })}>New record</button>}
        <ImportExport collection={collection.name} query={exportQuery} canImport={canEdit} onImported={() => void load()} />
      </div>
      {showFilter && (
        <div class="card">
          <FilterBuilder group={builder} paths={paths} onChange={setBuilder} />
          <pre class="filter-json" aria-label="Filter">{JSON.stringify(toFilter(builder, paths) ?? {})}</pre>
          <button type="button" class="primary" onClick={() => { resetPaging(); setFilter(toFilter(builder, paths)); }}>Apply filter</button>
          <button type="button" onClick={() => { setBuilder(emptyGroup()); resetPaging(); setFilter(undefined); }}>Clear</button>
        </div>
      )}
      {showColumns && (
        <fieldset class="card columns">
          <legend>Columns (fields, appends)</legend>
          {scalarFields(collection).map((field) => (
            <label class="check"><input type="checkbox" checked={columns.includes(field.name)} onChange={(e) => setColumns(e.currentTarget.checked ? [...columns, field.name] : columns.filter((name) => name !== field.name))} />{field.name}</label>
          ))}
          {collection.fields.filter(isAppendable).map((field) => (
            <label class="check"><input type="checkbox" checked={appends.includes(field.name)} onChange={(e) => setAppends(e.currentTarget.checked ? [...appends, field.name] : appends.filter((name) => name !== field.name))} />{field.name} ({field.type})</label>
          ))}
        </fieldset>
      )}
      <Problems error={error} />
      {form !== null && (
        <RecordForm key={String(form.key)} collection={collection} collections={collections} recordKey={form.key} onDone={(saved) => { setForm(null); if (saved) void load(); }} />
      )}
      {selected.size > 0 && <BulkBar collection={collection} keys={[...selected]} onDone={() => { setSelected(new Set()); void load(); }} />}
      <div class="table-wrap">
        <table class="grid records" aria-label={`${collection.name} records`}>
          <thead>
            <tr>
              <th scope="col" class="editing"><span class="visually-hidden">Select</span></th>
              {columns.map((name) => header(name, name))}
              {appends.map((name) => {
                const field = collection.fields.find((candidate) => candidate.name === name);
                const target = collections.find((candidate) => candidate.name === field?.target);
                const label = target === undefined ? '' : labelField(target);
                return field !== undefined && isToOne(field) ? header(`${name}.${label}`, `${name}.${label}`) : <th scope="col">{name}</th>;
              })}
              <th scope="col" class="editing"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={keyOf(row)} data-key={keyOf(row)}>
                <td class="editing"><input type="checkbox" aria-label={`Select ${collection.name} ${keyOf(row)}`} checked={selected.has(keyOf(row))} onChange={() => toggle(row)} /></td>
                {columns.map((name) => <td data-column={name}>{display(row[name])}</td>)}
                {appends.map((name) => {
                  const field = collection.fields.find((candidate) => candidate.name === name);
                  const target = collections.find((candidate) => candidate.name === field?.target);
                  const label = target === undefined ? 'id' : labelField(target);
                  const value = row[name];
                  if (field !== undefined && isAttachment(field)) return <td data-column={name}><AttachmentLinks value={value} /></td>;
                  const list = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
                  return <td data-column={name}>{(list as Row[]).map((related) => display(related[label] ?? related[target?.filterTargetKey ?? 'id'])).join(', ')}</td>;
                })}
                <td class="editing">{canEdit && <button type="button" onClick={() => setForm({ key: row[key] })} aria-label={`Edit ${collection.name} ${keyOf(row)}`}>Edit</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 && <p class="muted">No rows.</p>}
      <nav class="pager" aria-label="Pages">
        <label class="check"><input type="checkbox" checked={cursorMode} onChange={(e) => { setCursorMode(e.currentTarget.checked); resetPaging(); }} />cursor paging</label>
        <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>
        {!cursorMode && Array.from({ length: Math.min(totalPage, 9) }, (_, index) => index + 1).map((number) => (
          <button type="button" aria-current={number === page ? 'page' : undefined} aria-label={`Page ${number}`} onClick={() => setPage(number)}>{number}</button>
        ))}
        <button type="button" disabled={cursorMode ? meta.hasNext !== true : page >= totalPage} onClick={() => setPage(page + 1)}>Next</button>
        <span class="muted" data-testid="row-count">{meta.count === undefined ? `page ${page}` : `${meta.count} rows · page ${page} of ${totalPage}`}</span>
        <label>Rows per page
          <select value={pageSize} onChange={(e) => { setPageSize(Number(e.currentTarget.value)); resetPaging(); }}>
            {PAGE_SIZES.map((size) => <option value={size}>{size}</option>)}
          </select>
        </label>
      </nav>
    </section>
  );
}
