// Valibot schemas of contract/ as JSON Schema, for Fastify's validation, serialisation and OpenAPI.
import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { ErrorBody } from '../../contract/schemas.ts';

export function jsonSchema(schema: GenericSchema): Record<string, unknown> {
  // Transformations (trim) have no JSON Schema form; handlers apply them where they matter.
  const { $schema: _ignored, ...rest } = toJsonSchema(schema, { errorMode: 'ignore' }) as Record<string, unknown>;
  return rest;
}

export const errorSchema = jsonSchema(ErrorBody);

/** Response schemas for a route: its success answers plus the shared error body. */
export function responses(success: Record<number, GenericSchema | null>, errors: number[] = [400, 401, 429, 503]) {
  const out: Record<number, unknown> = {};
  for (const [status, schema] of Object.entries(success)) {
    out[Number(status)] = schema ? jsonSchema(schema) : { type: 'null', description: 'No content' };
  }
  for (const status of errors) out[status] = { ...errorSchema, additionalProperties: true };
  return out;
}
