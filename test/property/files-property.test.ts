/**
 * The files and system collections property (docs/files.md, docs/security.md).
 *
 * support/files-run.ts, with its own schema (notes
 * with attachment fields `files` and `pics` (images only), memos with `files`): a random role
 * (row filters and field lists on notes and memos, attachment fields often left out) and 8-16
 * random actions of the caller among uploads (multipart, also through `/notes/<id>/files:create`),
 * attachments:firstOrCreate/updateOrCreate/create/update with forged server-managed values
 * (path, sha256, size, mimetype, storage, url) copied from attachments it may not read, nested
 * writes with attachment objects and keys (`?updateAssociationValues=`), association creates,
 * files:add/set, CSV imports into attachments and into notes/memos with a files column, and
 * destructive calls on system collections (as the caller and as root), mixed with root's and
 * another user's uploads and links. After each of the caller's requests the oracle checks that
 *   1. the caller reads an attachment's bytes (and sees its row in attachments:list and appends) iff it can
 *      view a row owning it through an attachment field in its view field list, or it uploaded it
 *      and nothing links it; the bytes are the uploaded ones; anything else is 404 RECORD_NOT_FOUND;
 *   2. every attachment row was made by an upload and its server-managed values are still what
 *      the upload set;
 *   3. a new link names an attachment the caller could read (or uploaded in that request) on a
 *      row whose field it may write; naming an unreadable one answers like a missing key;
 *   4. system collections never change shape (root's drops are 409), and every answer is < 500
 *      with catalogue codes.
 * Run:        npx vitest run test/property/files-property.test.ts
 * Reproduce:  FILES_SEED=<seed> FILES_PATH=<path> CORRAL_TEST_DIALECTS=<dialect> (printed on failure);
 *             FILES_RUNS=<scenarios> for a longer run (default 10, about 600 requests as the caller).
 */
import { beforeAll, describe, it } from 'vitest';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';
import { checkFiles, setUpFilesHarness } from './support/files-run.js';

for (const dialect of DIALECTS) {
  describe(`files and system collections property on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let harness: Awaited<ReturnType<typeof setUpFilesHarness>>;
    beforeAll(async () => {
      harness = await setUpFilesHarness(ctx.built, ctx.api);
    });

    it('serves attachment bytes iff an owning row is visible through a listed field (or it is an unlinked own upload), keeps server-managed values and system collections as the server made them', async () => {
      await checkFiles(dialect, harness);
    }, 300_000);
  });
}
