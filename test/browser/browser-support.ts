import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's chromium package (`.ci/run` installs it); the tests never download a browser. */
export const CHROMIUM = process.env.CORRAL_TEST_CHROMIUM ?? '/usr/bin/chromium';
const BROWSER_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
export const hasBrowser = existsSync(CHROMIUM);

/** Where the screenshots go (kept after the run for people to look at). */
export const SCREENSHOTS = process.env.CORRAL_TEST_SCREENSHOTS ?? join(process.cwd(), 'test-results', 'screenshots');

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Requests the page tried to send anywhere but the server under test (must stay empty). */
  outside: string[];
  close(): Promise<void>;
}

/** A fresh Chromium profile at 1280×800 whose requests may reach only `base`. */
export async function openBrowser(base: string): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'corral-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, acceptDownloads: true, args: BROWSER_FLAGS, viewport: { width: 1280, height: 800 } });
  const outside: string[] = [];
  const page = context.pages()[0] ?? (await context.newPage());
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base) || url.startsWith('data:') || url.startsWith('blob:') || url === 'about:blank') return route.continue();
    outside.push(url);
    return route.abort();
  });
  return {
    context,
    page,
    outside,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Saves a screenshot of the page and checks it is not blank: drawn on a canvas in a blank tab,
 * it must hold many colours and no single colour may cover nearly all of it.
 */
export async function screenshot(browser: Browser, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  const png = await browser.page.screenshot({ fullPage: false });
  writeFileSync(path, png);
  const checker = await browser.context.newPage();
  try {
    // Runs in the page (a string: this project's tsconfig has no DOM types).
    const stats = (await checker.evaluate(`(async (dataUrl) => {
      const image = new Image();
      image.src = dataUrl;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0);
      const pixels = context.getImageData(0, 0, image.width, image.height).data;
      const counts = new Map();
      for (let index = 0; index < pixels.length; index += 16) {
        const colour = (pixels[index] << 16) | (pixels[index + 1] << 8) | pixels[index + 2];
        counts.set(colour, (counts.get(colour) ?? 0) + 1);
      }
      const total = pixels.length / 16;
      return { colours: counts.size, commonest: Math.max(...counts.values()) / total, width: image.width };
    })(${JSON.stringify(`data:image/png;base64,${png.toString('base64')}`)})`)) as { colours: number; commonest: number; width: number };
    expect(stats.colours, `${name}.png has too few colours: blank?`).toBeGreaterThan(20);
    expect(stats.commonest, `${name}.png is nearly one colour`).toBeLessThan(0.97);
  } finally {
    await checker.close();
  }
  return path;
}
