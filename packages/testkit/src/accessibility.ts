import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

let axeSource: string | undefined;

/**
 * axe-core's WCAG 2.1 A/AA rules (labels, contrast, names, landmarks) must find nothing on the page
 * as it is now. The page's context needs `bypassCSP: true` so axe can be injected (the page itself
 * still runs under its own CSP).
 */
export async function assertAccessible(page: Page, screen: string): Promise<void> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  const results = (await page.evaluate(() =>
    (
      window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<unknown> } }
    ).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }),
  )) as { violations: { id: string; help: string; nodes: { target: unknown[] }[] }[] };
  const found = results.violations.map(
    (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`,
  );
  assert.deepEqual(found, [], `accessibility problems on the ${screen} screen`);
}
