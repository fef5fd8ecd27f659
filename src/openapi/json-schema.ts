/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it): plain data, built by the generator. */
export type JsonSchema = { [keyword: string]: unknown };

/** `$ref` to a schema under components.schemas. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** The same schema, also allowing null (a type list where possible, else anyOf). */
export function orNull(schema: JsonSchema): JsonSchema {
  const { type } = schema;
  if (typeof type === 'string' && schema.enum === undefined) return { ...schema, type: [type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** Any JSON object (spelled out: generators read a bare `type: object` as an object with no properties). */
export const ANY_OBJECT: JsonSchema = { type: 'object', additionalProperties: true };
