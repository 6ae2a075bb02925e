/**
 * Why a target could not be reached, in plain words, from what fetch threw: it says "fetch failed" and puts
 * the reason in its cause, as a system code (ECONNREFUSED) or, for a port the Fetch standard forbids (9, 25,
 * 6000, ...), as "bad port".
 */
type Thrown = Error & { cause?: { code?: string; message?: string } };

export function unreachableReason(e: unknown, url: string): string {
  const err = e as Thrown;
  const code = err.cause?.code;
  const message = err.cause?.message ?? err.message;
  const { hostname, port, protocol } = new URL(url);
  const where = `${hostname}:${port || (protocol === 'https:' ? '443' : '80')}`;
  if (message === 'bad port')
    return `port ${port} is one fetch refuses to connect to (a "bad port" of the Fetch standard): serve the API on another`;
  switch (code) {
    case 'ECONNREFUSED':
      return `nothing accepts connections at ${where} (connection refused): is the server started, on that port?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host ${hostname} is not known (${code})`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `the network cannot reach ${hostname} (${code})`;
    case 'ECONNRESET':
      return `the connection was closed before an answer (${code})`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `no connection to ${where} in time (${code})`;
  }
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer in time (${err.name})`;
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `its TLS certificate was refused (${code})`;
  return `${code ?? err.name}: ${message}`;
}
