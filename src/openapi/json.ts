/** A JSON object as the API sends and answers it: a request's body, an object of a collection. */
export type Obj = Record<string, unknown>;
