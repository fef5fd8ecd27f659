/**
 * Fuzzing of the multipart endpoints on every dialect: uploads (`attachments:create`, an upload
 * through an attachment field) and imports (`<collection>:import`, an association import, the
 * `attachments` import) with generated multipart bodies (part counts and order, names,
 * filenames, headers, sizes, broken framing) carrying CSV-ish and XLSX-ish files
 * (multipart-arbitraries.ts). The oracle: never a 5xx, every answer the JSON envelope with
 * catalogue codes, and a refused request leaves the rows and attachments as they were.
 *
 * A fixed number of seeded cases (`FUZZ_SEED` reproduces a run, `FUZZ_MULTIPART_RUNS` changes
 * the count) and no time limit, so each run sends the same requests.
 */
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { beforeAll, describe, it } from 'vitest';
import type { TestApi } from '../support/test-app.js';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';
import { envelopeProblem } from './support/envelope.js';
import { describeRequest, FUZZ_SEED, outcomeOf, send } from './support/fuzz-run.js';
import { multipartRequestArb } from './support/multipart-arbitraries.js';

const RUNS = process.env.FUZZ_MULTIPART_RUNS === undefined ? 60 : Number(process.env.FUZZ_MULTIPART_RUNS);

/** A few real workbooks the XLSX-ish generator cuts and flips: plain, ragged, and one with a long shared string. */
async function workbooks(): Promise<Buffer[]> {
  const shapes: (string | number | null)[][][] = [
    [['title', 'pages'], ['Dune', 412], ['Neuromancer', 271]],
    [['Title', 'pages', 'extra'], ['=1+1', 'many'], [null, 3, 'x', 'y'], ['a\r\nb', -1]],
    [['title'], ['s'.repeat(5000)], ['s'.repeat(5000)]],
  ];
  const out: Buffer[] = [];
  for (const rows of shapes) {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Sheet1');
    for (const row of rows) sheet.addRow(row);
    out.push(Buffer.from(await book.xlsx.writeBuffer()));
  }
  return out;
}

/** What a refused request must leave unchanged: the collection's rows and the attachments. */
async function state(api: TestApi): Promise<string> {
  const [docs, chapters, attachments] = await Promise.all([
    api.get('/api/books:list?paginate=false&sort=id'),
    api.get('/api/chapters:list?paginate=false&sort=id'),
    api.get('/api/attachments:list?paginate=false&sort=id&fields=id,sha256,size'),
  ]);
  return JSON.stringify([docs.body?.data, chapters.body?.data, attachments.body?.data]);
}

async function fuzzMultipart(label: string, ctx: { api: TestApi; built: { app: Parameters<typeof send>[0] } }, paths: readonly string[], queries: readonly string[], books: readonly Buffer[]): Promise<void> {
  const statuses = new Map<string, number>();
  const property = fc.asyncProperty(multipartRequestArb(paths, queries, books), async (request) => {
    const before = await state(ctx.api);
    const reply = await send(ctx.built.app, request);
    const outcome = outcomeOf(request.method, reply);
    statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
    const problem = envelopeProblem(request.method, reply);
    if (problem !== undefined) throw new Error(`${problem}\n  request: ${describeRequest(request)}\n  answer: ${reply.status} ${reply.text.slice(0, 500)}`);
    if (reply.status >= 400 && (await state(ctx.api)) !== before) {
      throw new Error(`rows or attachments changed on a ${reply.status}\n  request: ${describeRequest(request)}\n  answer: ${reply.text.slice(0, 500)}`);
    }
  });
  const details = await fc.check(property, { seed: FUZZ_SEED, numRuns: RUNS, endOnFailure: true });
  console.log(`[fuzz ${label}] ${details.numRuns} runs, seed ${FUZZ_SEED}; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a.localeCompare(b))))}`);
  if (details.failed) {
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(`fuzz ${label} failed; reproduce with FUZZ_SEED=${FUZZ_SEED} FUZZ_MULTIPART_RUNS=${RUNS}\n${error}`);
  }
}

for (const dialect of DIALECTS) {
  describe(`multipart fuzz on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let books: Buffer[] = [];
    beforeAll(async () => {
      books = await workbooks();
      await ctx.api.collection({ name: 'chapters', fields: [{ name: 'title', type: 'string' }] });
      await ctx.api.collection({
        name: 'books',
        fields: [
          { name: 'title', type: 'string', unique: true },
          { name: 'pages', type: 'integer' },
          { name: 'files', type: 'attachment' },
          { name: 'cover', type: 'attachment', multiple: false, accept: ['image/*'] },
          { name: 'chapters', type: 'hasMany', target: 'chapters' },
        ],
      });
      const created = await ctx.api.post('/api/books:create', { title: 'first', pages: 1 });
      if (created.status !== 201) throw new Error(`seed failed: ${created.status} ${created.text}`);
    });

    it('answers generated uploads in the envelope, never 5xx, and keeps nothing of a refused one', async () => {
      await fuzzMultipart(`uploads on ${dialect}`, ctx, ['attachments:create', 'books/1/files:create', 'books/1/cover:create', 'books/999/files:create'], ['attachmentField=books.cover', 'attachmentField=books.nope'], books);
    }, 120_000);

    it('answers generated imports in the envelope, never 5xx, and writes nothing on a refused one', async () => {
      await fuzzMultipart(`imports on ${dialect}`, ctx, ['books:import', 'books/1/chapters:import', 'attachments:import', 'chapters:import'], ['mode=skip-invalid', 'filterKeys=title', 'format=xlsx', 'format=csv', 'mapping=%7B%22Title%22%3A%22title%22%7D', 'mode=bogus'], books);
    }, 120_000);
  });
}
