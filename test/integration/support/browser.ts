// Debian's headless Chromium driven by playwright-core: never a downloaded browser, a fresh profile per launch,
// nothing reaching the network on its own. Screenshots go to test/screenshots/ (git-ignored).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { repoRoot } from './index.js';

/** Where Debian's chromium package puts the browser. */
const CHROMIUM = '/usr/bin/chromium';

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const SCREENSHOTS = join(repoRoot, 'test', 'screenshots');

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Starts Chromium with a fresh --user-data-dir (removed again on close); `scripts: false` turns JavaScript off. */
export async function launchChromium(opts: { scripts?: boolean } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: the browser tests need Debian's chromium (apt-get install chromium chromium-driver; .ci/run installs it)`);
  const profile = mkdtempSync(join(tmpdir(), 'kgitops-chromium-'));
  mkdirSync(SCREENSHOTS, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1600, height: 1000 },
    ...(opts.scripts === false ? { javaScriptEnabled: false } : {}),
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
