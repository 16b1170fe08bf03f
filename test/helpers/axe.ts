// axe-core (a dev dependency) run inside the page: WCAG 2.0/2.1 A and AA rules. Evaluated
// through the DevTools protocol, which the page's CSP does not govern, so the page under test
// keeps its real policy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT } from './process.ts';

const SOURCE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** The serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(SOURCE);
  // A string, not a function: this file is checked without the DOM's types.
  const found = await page.evaluate<AxeViolation[]>(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`);
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
