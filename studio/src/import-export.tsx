import { useState } from 'preact/hooks';
import { ApiFailure, isObject, type Query } from './api';
import { download, importFile, type ImportProblem, type ImportReport } from './transfer';
import { Problems, useAction } from './ui';

/** Row problems an all-or-nothing import refused with (in the error's `details.errors`). */
function problemsOf(error: unknown): ImportProblem[] {
  if (!(error instanceof ApiFailure)) return [];
  for (const entry of error.entries as unknown[]) {
    if (isObject(entry) && isObject(entry.details) && Array.isArray(entry.details.errors)) return entry.details.errors as ImportProblem[];
  }
  return [];
}

function ProblemTable({ problems }: { problems: ImportProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <table class="grid" aria-label="Rejected rows">
      <thead><tr><th scope="col">row</th><th scope="col">field</th><th scope="col">code</th><th scope="col">message</th></tr></thead>
      <tbody>
        {problems.slice(0, 100).map((problem) => (
          <tr><td>{problem.row}</td><td>{problem.field ?? ''}</td><td>{problem.code}</td><td>{problem.message}</td></tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Export the rows the grid's filter, search, sort and columns select (CSV or XLSX), and import a
 * spreadsheet into the collection (all rows or none, or skipping invalid ones; upsert by key fields).
 */
export function ImportExport({ collection, query, canImport, onImported }: { collection: string; query: Query; canImport: boolean; onImported: () => void }) {
  const [open, setOpen] = useState(false);
  const [mode, setMode] = useState('all');
  const [filterKeys, setFilterKeys] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<{ processed: number; total: number | undefined } | null>(null);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [busy, error, run] = useAction();
  const path = encodeURIComponent(collection);

  const exportAs = (format: 'csv' | 'xlsx') => void run(async () => {
    await download(`${path}:export`, { ...query, format }, `${collection}.${format}`);
  });
  const submit = (event: Event) => {
    event.preventDefault();
    if (file === null) return;
    setReport(null);
    setProgress({ processed: 0, total: undefined });
    void run(async () => {
      try {
        const answer = await importFile(`${path}:import`, file, { mode, filterKeys }, (processed, total) => setProgress({ processed, total }));
        setReport(answer);
        onImported();
      } finally {
        setProgress(null);
      }
    });
  };

  return (
    <>
      <button type="button" disabled={busy} onClick={() => exportAs('csv')}>Export CSV</button>
      <button type="button" disabled={busy} onClick={() => exportAs('xlsx')}>Export XLSX</button>
      {canImport && <button type="button" class="editing" aria-expanded={open} onClick={() => setOpen(!open)}>Import</button>}
      {open && (
        <form class="card import-form" aria-label={`Import into ${collection}`} onSubmit={submit}>
          <label>Spreadsheet (CSV or XLSX)
            <input type="file" name="file" accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
          </label>
          <label>Invalid rows
            <select name="mode" value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
              <option value="all">refuse the whole file</option>
              <option value="skip-invalid">skip them and import the rest</option>
            </select>
          </label>
          <label>Update rows matching (filterKeys)
            <input name="filterKeys" type="text" placeholder="e.g. email" value={filterKeys} onInput={(e) => setFilterKeys(e.currentTarget.value)} />
          </label>
          <button type="submit" class="primary" disabled={busy || file === null}>Import file</button>
          {progress !== null && (
            <p role="status">
              <progress max={progress.total ?? undefined} value={progress.total === undefined ? undefined : progress.processed} />{' '}
              {progress.processed} rows read{progress.total === undefined ? '' : ` of ${progress.total}`}
            </p>
          )}
          {report !== null && (
            <p role="status" data-testid="import-report">
              {report.created} created, {report.updated} updated, {report.skipped} skipped of {report.total} rows
            </p>
          )}
          <ProblemTable problems={report?.errors ?? problemsOf(error)} />
        </form>
      )}
      <Problems error={error} />
    </>
  );
}
