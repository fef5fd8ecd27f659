import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../request/query-params.js';
import { FILTER_SCHEMA } from './common-schemas.js';
import { ref, type JsonSchema } from './json-schema.js';

/** The query parameters of API.md §2 that do not depend on the collection, as components.parameters. */
export const QUERY_PARAMETERS = ['filter', 'fields', 'except', 'appends', 'sort', 'page', 'pageSize', 'paginate', 'simplePaginate', 'whitelist', 'blacklist', 'updateAssociationValues', 'cascade', 'cursor', 'q', 'filterKeys', 'after'] as const;
export type QueryParameter = (typeof QUERY_PARAMETERS)[number];

const nameList = (description: string): JsonSchema => ({
  in: 'query',
  description: `${description} (comma-separated, or repeated as name[]=…)`,
  schema: { type: 'array', items: { type: 'string' } },
  style: 'form',
  explode: false,
});

const flag = (description: string): JsonSchema => ({ in: 'query', description, schema: { type: 'boolean' } });

const PARAMETERS: Record<QueryParameter, JsonSchema> = {
  filter: {
    in: 'query',
    description: 'JSON-encoded filter (API.md §5); the qs nested form filter[title][$eq]=x is accepted too',
    // The example is what Swagger UI fills in: an empty filter, valid on every collection.
    content: { 'application/json': { schema: ref(FILTER_SCHEMA), example: {} } },
  },
  fields: nameList('only these fields; assoc.field selects inside an appended association'),
  except: nameList('fields to leave out'),
  appends: nameList('associations to embed; dot paths nest (comments.author)'),
  sort: nameList('fields to sort by; a leading - sorts descending; to-one association paths allowed (author.name)'),
  page: { in: 'query', description: '1-based page', schema: { type: 'integer', minimum: 1, default: 1 } },
  pageSize: { in: 'query', description: `rows per page (at most ${MAX_PAGE_SIZE})`, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE } },
  paginate: flag('false: every matching row, streamed, no meta'),
  simplePaginate: flag('true: no count; meta.hasNext instead'),
  whitelist: nameList('names this write may touch; others in the body are left out'),
  blacklist: nameList('names this write leaves out'),
  updateAssociationValues: nameList('associations whose nested objects may change existing targets'),
  cascade: flag('true: also drop the relations of other collections that point at this one'),
  cursor: { in: 'query', description: 'keyset paging: empty for the first page, then meta.nextCursor; meta is then {pageSize, hasNext, nextCursor}', schema: { type: 'string' } },
  q: { in: 'query', description: 'search text: the same as a $search filter on the searchable fields', schema: { type: 'string' } },
  filterKeys: nameList('the fields whose body values find the existing row'),
  after: { in: 'query', description: 'resume after this event id (or send the Last-Event-ID header)', schema: { type: 'integer', minimum: 0 } },
};

export function parameterComponents(): Record<string, JsonSchema> {
  return Object.fromEntries(QUERY_PARAMETERS.map((name) => [name, { name, ...PARAMETERS[name] }]));
}

export const parameterRef = (name: QueryParameter): JsonSchema => ({ $ref: `#/components/parameters/${name}` });
