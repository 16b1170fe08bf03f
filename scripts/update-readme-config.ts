// Rewrites the configuration table of docs/configuration.md from src/config.ts (the README links
// to that page). Usage: node scripts/update-readme-config.ts
// test/docs.test.ts fails when the page holds anything but what this writes today.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { VARIABLES } from '../src/config.ts';

export const CONFIG_DOC = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
const START = '<!-- config-table:start -->';
const END = '<!-- config-table:end -->';

const escape = (s: string) => s.replace(/\|/g, '\\|');

/** The Markdown table of every variable, one row each, in src/config.ts's order. */
export function configTable(): string {
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...VARIABLES.map((v) => `| \`${v.name}\` | \`${escape(v.default)}\` | ${escape(v.description)} |`)].join('\n');
}

/** The page with the text between its markers replaced by the current table. */
export function withConfigTable(page: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END, start);
  if (start < 0 || end < 0) throw new Error(`${CONFIG_DOC} has no ${START} … ${END} markers`);
  return `${page.slice(0, start + START.length)}\n${configTable()}\n${page.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(CONFIG_DOC, withConfigTable(readFileSync(CONFIG_DOC, 'utf8')));
  process.stdout.write(`docs/configuration.md: ${VARIABLES.length} variables\n`);
}
