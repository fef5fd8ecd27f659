// @ts-check
// The report's tables: markdown on stdout.

/**
 * A markdown table on stdout: the first two columns left-aligned, the others right-aligned.
 * @param {string} title
 * @param {string[]} header
 * @param {string[][]} body
 */
export function printRows(title, header, body) {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => String(row[i]).length)));
  const line = (/** @type {string[]} */ cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const out = [line(header), `|${widths.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...body.map(line)];
  process.stdout.write(`\n${title}\n${out.join('\n')}\n`);
}
