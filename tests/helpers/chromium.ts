/**
 * Debian's Chromium, headless, as every browser test and bench starts it: no sandbox (it
 * runs in a container), no GPU, no background traffic (nothing leaves the machine).
 */
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

type ProfileOptions = NonNullable<Parameters<typeof chromium.launchPersistentContext>[1]>;

const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

/** A browser with throw-away contexts (`browser.newPage()`). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/** A browser on its own profile folder (IndexedDB and localStorage persist across reloads). */
export function launchChromiumProfile(
  userDataDir: string,
  options: Omit<ProfileOptions, 'executablePath' | 'args' | 'headless'> = {},
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    ...options,
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
  });
}
