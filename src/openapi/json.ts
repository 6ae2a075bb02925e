/** A JSON object as the API sends and answers it: a request's body, an object of a collection. */
export type Obj = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a value is a UUID in its text form, as the API's identifiers are. */
export const isUuid = (value: unknown): boolean => typeof value === 'string' && UUID.test(value);
