/** Secrets never leave the process: every recorded string passes through a Redactor. */
export class Redactor {
  private readonly secrets: string[];

  constructor(secrets: string[]) {
    // Longest first, so that a secret containing another is replaced whole.
    this.secrets = [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.secrets) out = out.split(secret).join('***');
    return out;
  }

  /**
   * Credentials headers keep their scheme only (`Bearer ***`). An authorization header that carries none of the
   * secrets is the suite's own made-up wrong credentials (checks/auth/records.ts): kept, so that its curl line
   * repeats the refusal it shows.
   */
  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      const credentials = /^(proxy-)?authorization$/i.test(name)
        ? this.text(value) !== value
        : /^(cookie|x-api-key)$/i.test(name);
      out[name] = credentials ? value.replace(/^(\w+\s+)?.*$/s, '$1***') : this.text(value);
    }
    return out;
  }
}
