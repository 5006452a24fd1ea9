export { CHROMIUM_ARGS, CHROMIUM_PATH, launchChromium } from './browser.ts';
export { serviceUrl, tempDir } from './services.ts';
