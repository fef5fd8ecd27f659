import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiFailure, messageOf } from './api';

/** Messages of a failed call that belong to no field (field ones go next to their inputs). */
export function Problems({ error, shown = [] }: { error: unknown; shown?: string[] }) {
  if (error === undefined || error === null) return null;
  const lines = error instanceof ApiFailure
    ? error.entries.filter((entry) => entry.field === undefined || !shown.includes(entry.field)).map((entry) => `${entry.message} (${entry.code})`)
    : [messageOf(error)];
  if (lines.length === 0) return null;
  return (
    <div role="alert" class="error">
      {lines.map((line) => <p>{line}</p>)}
    </div>
  );
}

/** An inline confirmation that says what goes before anything is dropped. */
export function Confirm({ message, action, onConfirm, onCancel }: { message: ComponentChildren; action: string; onConfirm: () => void; onCancel: () => void }) {
  return (
    <div role="alertdialog" aria-modal="false" aria-label="Confirm" class="confirm">
      <div>{message}</div>
      <button type="button" class="danger" onClick={onConfirm} autoFocus>{action}</button>
      <button type="button" onClick={onCancel}>Cancel</button>
    </div>
  );
}

/** Runs an async action, keeping its error and a busy flag. */
export function useAction(): [busy: boolean, error: unknown, run: (work: () => Promise<void>) => Promise<boolean>, clear: () => void] {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = async (work: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return [busy, error, run, () => setError(undefined)];
}

/** A field's own error text, tied to its input by id. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (message === undefined) return null;
  return <span id={id} class="field-error" role="alert">{message}</span>;
}

export function fieldErrorsOf(error: unknown): Record<string, string> {
  return error instanceof ApiFailure ? error.fieldErrors() : {};
}
