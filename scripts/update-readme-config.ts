// Rewrites the configuration table in README.md from src/config.ts.
// Usage: node scripts/update-readme-config.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { VARIABLES } from '../src/config.ts';

const escape = (s: string) => s.replace(/\|/g, '\\|');
const table = ['| Variable | Default | Meaning |', '|---|---|---|', ...VARIABLES.map((v) => `| \`${v.name}\` | \`${escape(v.default)}\` | ${escape(v.description)} |`)].join('\n');
const file = new URL('../README.md', import.meta.url);
const readme = readFileSync(file, 'utf8');
const start = readme.indexOf('| Variable | Default | Meaning |');
if (start < 0) throw new Error('README.md has no configuration table');
const end = readme.indexOf('\n\n', start);
writeFileSync(file, readme.slice(0, start) + table + readme.slice(end));
process.stdout.write(`README.md: ${VARIABLES.length} variables\n`);
