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

  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      out[name] = /^(authorization|proxy-authorization|cookie|x-api-key)$/i.test(name)
        ? value.replace(/^(\w+\s+)?.*$/s, '$1***')
        : this.text(value);
    }
    return out;
  }
}
