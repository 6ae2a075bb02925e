/** The credentials header of a config: a Bearer key (cloud) or HTTP Basic (a local server's auth string). */
export function authHeaders(credentials: { apiKey?: string; authString?: string }): Record<string, string> {
  if (credentials.apiKey) return { authorization: `Bearer ${credentials.apiKey}` };
  if (credentials.authString)
    return { authorization: `Basic ${Buffer.from(credentials.authString).toString('base64')}` };
  return {};
}
