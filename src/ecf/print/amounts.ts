// How amounts read on the printed e-CF. Dominican practice, and DGII's own forms and examples,
// write a dot for decimals and a comma between thousands ("RD$ 1,234.50"), like the XML
// but grouped; the Spanish-of-Spain convention (1.234,50) would misread here. Amounts come as
// the XML's decimal text and are formatted as text: never through a binary float.

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Decimal text with thousands grouped and at least `minFraction` decimals; other text as it is. */
export function formatDecimal(text: string, minFraction = 2): string {
  const m = DECIMAL.exec(text.trim());
  if (m === null) return text;
  const [, sign = '', int = '0', frac = ''] = m;
  const digits = int.replace(/^0+(?=\d)/, '');
  const grouped = digits.replace(/\B(?=(\d{3})+$)/g, ',');
  const fraction = frac.length >= minFraction ? frac : frac.padEnd(minFraction, '0');
  return `${sign}${grouped}${fraction === '' ? '' : `.${fraction}`}`;
}

/** An amount in Dominican pesos: "RD$ 1,234.50". */
export function pesos(text: string): string {
  return `RD$ ${formatDecimal(text)}`;
}
