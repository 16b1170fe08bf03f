// Prints the README's configuration table from src/config.ts, the single source of truth.
// Usage: npx tsx scripts/config-table.ts
import { VARIABLES } from '../src/config.ts';

const escape = (s: string) => s.replace(/\|/g, '\\|');
console.log('| Variable | Default | Meaning |');
console.log('|---|---|---|');
for (const v of VARIABLES) console.log(`| \`${v.name}\` | \`${escape(v.default)}\` | ${escape(v.description)} |`);
