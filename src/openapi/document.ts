/** An OpenAPI document as JSON: the fields the suite reads, and whatever else it carries. */
export type OpenApiDocument = {
  openapi: string;
  info: { title?: string; version?: string };
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> };
  servers?: Array<{ url?: unknown }>;
  [key: string]: unknown;
};
