/**
 * A short, readable start tag for console messages (`<agent-capability name="rename" effect="…">`),
 * so a page author can find the element a refusal is about. Long values are cut.
 */
export function elementLabel(element: Element, max = 200): string {
  let out = `<${element.localName}`;
  for (const { name, value } of Array.from(element.attributes)) {
    out += value === '' ? ` ${name}` : ` ${name}="${value.length > 60 ? `${value.slice(0, 57)}…` : value}"`;
    if (out.length > max) return `${out.slice(0, max - 2)}…>`;
  }
  return `${out}>`;
}
