import { API_PREFIX, ApiFailure, headers, isObject, queryString, type ErrorEntry, type Query } from './api';
import { sseEvents } from './sse';

/**
 * Files to and from the API: downloads (an export, an attachment's bytes) and multipart uploads
 * (an attachment, an import). A link cannot carry the Authorization header, so a download is
 * fetched with it and handed to the browser as an object URL.
 */

async function failure(response: Response): Promise<ApiFailure> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const entries = isObject(body) && Array.isArray(body.errors) ? (body.errors as ErrorEntry[]) : [{ code: `HTTP_${response.status}`, message: text.slice(0, 200) || response.statusText }];
  return new ApiFailure(response.status, entries);
}

/** The file name a `Content-Disposition` answer names (`filename*=UTF-8''…` first). */
export function dispositionName(header: string | null, fallback: string): string {
  if (header === null) return fallback;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star !== null) {
    try {
      return decodeURIComponent(star[1]!);
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename="([^"]*)"/i.exec(header) ?? /filename=([^;]+)/i.exec(header);
  return plain === null ? fallback : plain[1]!.trim();
}

/** GETs `path` (relative to the API prefix) with the session's headers and saves the answer as a file. */
export async function download(path: string, query: Query | undefined, fallbackName: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${API_PREFIX}/${path}${queryString(query)}`, { headers: headers() });
  } catch (error) {
    throw new ApiFailure(0, [{ code: 'NETWORK', message: `the server did not answer (${String(error)})` }]);
  }
  if (!response.ok) throw await failure(response);
  const name = dispositionName(response.headers.get('content-disposition'), fallbackName);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return name;
}

/** POSTs a multipart body (`file` plus text parts) and answers the JSON `data`. */
export async function upload<T>(path: string, file: File, parts: Record<string, string> = {}, query?: Query): Promise<T> {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) form.append(name, value);
  form.append('file', file, file.name);
  let response: Response;
  try {
    response = await fetch(`${API_PREFIX}/${path}${queryString(query)}`, { method: 'POST', headers: headers(), body: form });
  } catch (error) {
    throw new ApiFailure(0, [{ code: 'NETWORK', message: `the server did not answer (${String(error)})` }]);
  }
  if (!response.ok) throw await failure(response);
  const body: unknown = await response.json();
  return (isObject(body) ? body.data : undefined) as T;
}

export interface ImportProblem {
  row: number;
  field?: string;
  code: string;
  message: string;
}

export interface ImportReport {
  total: number;
  created: number;
  updated: number;
  skipped: number;
  errors: ImportProblem[];
}

/**
 * `<collection>:import` with `Accept: text/event-stream`: `progress` events while rows are read,
 * then one `result` (the report) or `error` (the API's error body).
 */
export async function importFile(path: string, file: File, options: { mode: string; filterKeys: string }, onProgress: (processed: number, total: number | undefined) => void): Promise<ImportReport> {
  const form = new FormData();
  form.append('mode', options.mode);
  if (options.filterKeys.trim() !== '') form.append('filterKeys', options.filterKeys.trim());
  form.append('file', file, file.name);
  let response: Response;
  try {
    response = await fetch(`${API_PREFIX}/${path}`, { method: 'POST', headers: headers({ accept: 'text/event-stream' }), body: form });
  } catch (error) {
    throw new ApiFailure(0, [{ code: 'NETWORK', message: `the server did not answer (${String(error)})` }]);
  }
  if (!response.ok) throw await failure(response);
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || response.body === null) {
    const body: unknown = await response.json();
    return (isObject(body) ? body.data : undefined) as ImportReport;
  }
  for await (const { event, data } of sseEvents(response.body)) {
    if (data === '') continue;
    const parsed: unknown = JSON.parse(data);
    if (event === 'progress' && isObject(parsed)) onProgress(Number(parsed.processed ?? 0), typeof parsed.total === 'number' ? parsed.total : undefined);
    else if (event === 'result') return (isObject(parsed) && isObject(parsed.data) ? parsed.data : parsed) as unknown as ImportReport;
    else if (event === 'error') {
      const entries = isObject(parsed) && Array.isArray(parsed.errors) ? (parsed.errors as ErrorEntry[]) : [{ code: 'IMPORT_FAILED', message: data }];
      throw new ApiFailure(400, entries);
    }
  }
  throw new ApiFailure(0, [{ code: 'NETWORK', message: 'the import stream ended without a result' }]);
}
