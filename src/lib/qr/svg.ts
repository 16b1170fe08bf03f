// SVG rendering of a symbol: one path of unit squares on a white field, scaled by the viewer.
// `shape-rendering: crispEdges` keeps the modules sharp at any size.

interface DarkModules {
  readonly size: number;
  isDark(x: number, y: number): boolean;
}

/** An SVG document of the symbol with `quietZone` light modules around it (4 by the standard). */
export function qrToSvg(code: DarkModules, { quietZone = 4, title }: { quietZone?: number; title?: string } = {}): string {
  if (!Number.isInteger(quietZone) || quietZone < 0 || quietZone > 64) throw new RangeError('SVG quiet zone must be an integer from 0 to 64');
  const side = code.size + 2 * quietZone;
  const runs: string[] = [];
  for (let y = 0; y < code.size; y++) {
    // Consecutive dark modules of a row are one rectangle: a third of the path of squares.
    let x = 0;
    while (x < code.size) {
      if (!code.isDark(x, y)) {
        x++;
        continue;
      }
      let end = x;
      while (end < code.size && code.isDark(end, y)) end++;
      runs.push(`M${x + quietZone} ${y + quietZone}h${end - x}v1h-${end - x}z`);
      x = end;
    }
  }
  const escaped = title?.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges" role="img">`
    + (escaped === undefined ? '' : `<title>${escaped}</title>`)
    + `<rect width="${side}" height="${side}" fill="#fff"/><path fill="#000" d="${runs.join('')}"/></svg>`;
}
