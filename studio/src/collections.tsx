import { useState } from 'preact/hooks';
import { call } from './api';
import { href, navigate, onLink } from './router';
import { isSystemCollection, referencesTo, type Collection } from './schema';
import { Confirm, FieldError, fieldErrorsOf, Problems, useAction } from './ui';

/** Every collection: create one, retitle, drop (naming what the drop takes with it). */
export function CollectionsScreen({ collections, onChanged }: { collections: Collection[]; onChanged: () => Promise<void> }) {
  const [name, setName] = useState('');
  const [title, setTitle] = useState('');
  const [busy, error, run] = useAction();
  const [dropping, setDropping] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ name: string; title: string } | null>(null);
  const fieldErrors = fieldErrorsOf(error);

  const create = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      await call('POST', 'collections:create', { body: { name, ...(title === '' ? {} : { title }), fields: [] } });
      await onChanged();
      setName('');
      setTitle('');
      navigate(href('collections', name, 'fields'));
    });
  };
  const retitle = (event: Event) => {
    event.preventDefault();
    if (editing === null) return;
    void run(async () => {
      await call('POST', `collections:update/${encodeURIComponent(editing.name)}`, { body: { title: editing.title } });
      setEditing(null);
      await onChanged();
    });
  };
  const drop = (collection: string, cascade: boolean) =>
    void run(async () => {
      await call('POST', `collections:destroy/${encodeURIComponent(collection)}`, { query: cascade ? { cascade: true } : {} });
      setDropping(null);
      await onChanged();
    });

  // System collections (users, roles…) are listed apart, with no Drop button: the API refuses to drop them.
  const own = collections.filter((collection) => !isSystemCollection(collection));
  const system = collections.filter(isSystemCollection);
  return (
    <section aria-labelledby="collections-title">
      <h1 id="collections-title">Collections</h1>
      <Problems error={error} shown={["name"]} />
      <div class="table-wrap">
        <table class="grid">
          <thead>
            <tr><th scope="col">Name</th><th scope="col">Title</th><th scope="col">Fields</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr>
          </thead>
          <tbody>
            {own.map((collection) => {
              const references = referencesTo(collections, collection.name);
              return (
                <tr key={collection.name} data-collection={collection.name}>
                  <td><a href={href('collections', collection.name)} onClick={onLink}>{collection.name}</a></td>
                  <td>
                    {editing?.name === collection.name ? (
                      <form onSubmit={retitle} class="inline">
                        <label><span class="visually-hidden">Title of {collection.name}</span><input value={editing.title} onInput={(e) => setEditing({ name: collection.name, title: e.currentTarget.value })} /></label>
                        <button type="submit" disabled={busy}>Save</button>
                        <button type="button" onClick={() => setEditing(null)}>Cancel</button>
                      </form>
                    ) : (collection.title ?? '')}
                  </td>
                  <td>{collection.fields.length}</td>
                  <td class="actions">
                    <a href={href('collections', collection.name, 'fields')} onClick={onLink}>Fields</a>
                    <button type="button" onClick={() => setEditing({ name: collection.name, title: collection.title ?? '' })}>Retitle</button>
                    <button type="button" class="danger" onClick={() => setDropping(collection.name)}>Drop</button>
                    {dropping === collection.name && (
                      <Confirm
                        action={`Drop ${collection.name}`}
                        message={
                          <p>
                            Drop <strong>{collection.name}</strong> and all its rows?
                            {references.length > 0 && <> These fields point at it and go too: {references.join(', ')}.</>}
                          </p>
                        }
                        onConfirm={() => drop(collection.name, references.length > 0)}
                        onCancel={() => setDropping(null)}
                      />
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {own.length === 0 && <p>No collections yet.</p>}
      <h2 id="system-collections-title">System collections</h2>
      <p class="muted">Corral's own collections: their rows are yours to manage, but they cannot be dropped or renamed, nor their built-in fields changed.</p>
      <div class="table-wrap">
        <table class="grid" aria-labelledby="system-collections-title">
          <thead>
            <tr><th scope="col">Name</th><th scope="col">Title</th><th scope="col">Fields</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr>
          </thead>
          <tbody>
            {system.map((collection) => (
              <tr key={collection.name} data-system-collection={collection.name}>
                <td><a href={href('collections', collection.name)} onClick={onLink}>{collection.name}</a></td>
                <td>{collection.title ?? ''}</td>
                <td>{collection.fields.length}</td>
                <td class="actions"><a href={href('collections', collection.name, 'fields')} onClick={onLink}>Fields</a></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form onSubmit={create} class="card" aria-labelledby="new-collection">
        <h2 id="new-collection">New collection</h2>
        <label>Name<input name="name" required pattern="[A-Za-z_][A-Za-z0-9_]{0,62}" value={name} onInput={(e) => setName(e.currentTarget.value)} aria-describedby="new-collection-name-error" /></label>
        <FieldError id="new-collection-name-error" message={fieldErrors.name} />
        <label>Title<input name="title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} /></label>
        <button type="submit" class="primary" disabled={busy}>Create collection</button>
      </form>
    </section>
  );
}
