import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import { chromium, type Browser, type Page } from 'playwright-core';

// Debian's Chromium driven by playwright-core, for the browser tests. TEST_CHROMIUM_PATH names the binary; without it
// those tests report themselves skipped. The network is closed, so Chromium runs with exactly the flags that keep it
// from calling out, and a fresh profile folder.
export const executablePath = process.env.TEST_CHROMIUM_PATH;
export const SCREENSHOTS = Path.join(__dirname, '..', '..', '.test-output', 'screenshots');
export const BROWSER_TIMEOUT = 120_000;                         // a bound on a whole flow, not an assertion on its speed
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface LaunchedBrowser {
    browser: Browser;
    close(): Promise<void>;
}

export async function launchChromium(): Promise<LaunchedBrowser> {
    const profile = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-chromium-'));
    Fs.mkdirSync(SCREENSHOTS, { recursive: true });
    // Playwright adds nothing of its own (ignoreDefaultArgs): only the pipe it drives the browser through.
    const browser = await chromium.launch({
        executablePath: executablePath!,
        ignoreDefaultArgs: true,
        args: [...FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe', '--no-startup-window']
    });
    return {
        browser,
        close: async () => {
            await browser.close();
            Fs.rmSync(profile, { recursive: true, force: true });
        }
    };
}

export function screenshot(page: Page, name: string): Promise<Buffer> {
    return page.screenshot({ path: Path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
