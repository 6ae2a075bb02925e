/** Debian's Chromium, driven by playwright-core; never a downloaded browser. */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const chromiumPath =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export function launchChromium(): Promise<Browser> {
  if (!chromiumPath)
    throw new Error("no Chromium: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH");
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // No sandbox as root in CI; no GPU; nothing that reaches the network on its own.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}
