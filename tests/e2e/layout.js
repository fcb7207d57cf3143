// The layout check of tests/e2e/test_layout.py, run in the page: `root` (a CSS selector; the document's body
// when absent) holds what is checked. Returns one line per fault, empty when the page looks right:
// - the page scrolls sideways, or an element passes the right edge of the window;
// - a text is cut by its box (an ellipsis, or hidden overflow);
// - a table is wider than its box without a caption right below it saying that it scrolls;
// - a chart's text (title, axis title, tick label, legend, annotation, bar or cell label) leaves the chart's
//   drawing, a legend's entry leaves the legend, or two of a chart's texts overlap (their turned boxes);
// - a pop-up of the framework is shown.
(root) => {
  const W = window.innerWidth, faults = [];
  const main = (root && document.querySelector(root)) || document.body;
  const words = (el) => (el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60);
  const where = (el) => {
    const tagged = el.closest('[data-testid]');
    return `${tagged ? tagged.getAttribute('data-testid') : el.tagName.toLowerCase()} "${words(el)}"`;
  };
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none' && el.closest('[hidden]') === null;
  };

  if (document.documentElement.scrollWidth > W + 1)
    faults.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide in a ${W} px window`);

  // past the right edge, unless a box that scrolls or clips holds it inside the window
  for (const el of main.querySelectorAll('*')) {
    if (el.closest('svg') || !shown(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.right <= W + 1) continue;
    let held = false;
    for (let up = el.parentElement; up && up !== document.documentElement; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== 'visible' && up.getBoundingClientRect().right <= W + 1) { held = true; break; }
    }
    if (!held) faults.push(`passes the right edge (${Math.round(r.right)} px > ${W} px): ${where(el)}`);
  }

  // text cut by its box: the element holds text of its own and hides what does not fit
  for (const el of main.querySelectorAll('*')) {
    if (el.closest('svg, .katex-mathml, [data-testid="stDataFrame"], [data-testid="stFileUploaderDropzone"]')) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (!own || !shown(el) || el.clientWidth <= 1) continue;  // a visually hidden text (for screen readers)
    const s = getComputedStyle(el);
    const hides = s.textOverflow === 'ellipsis' || s.overflowX === 'hidden' || s.overflowX === 'clip';
    if (hides && el.scrollWidth > el.clientWidth + 1)
      faults.push(`text cut (${el.scrollWidth} px in ${el.clientWidth} px): ${where(el)}`);
  }

  // a table wider than its box says that it scrolls, in the caption right below it
  for (const table of main.querySelectorAll('[data-testid="stDataFrame"]')) {
    const scroller = table.querySelector('.dvn-scroller');
    if (!shown(table) || !scroller || scroller.scrollWidth <= scroller.clientWidth + 1) continue;
    const next = table.closest('[data-testid="stElementContainer"]')?.nextElementSibling;
    if (!next || !/scroll/i.test(next.textContent || ''))
      faults.push(`a table wider than its box (${scroller.scrollWidth} px in ${scroller.clientWidth} px) does not say `
                  + `that it scrolls: ${words(table)}`);
  }

  // charts: each text inside the drawing, legend entries inside their legend, no two texts overlapping
  const corners = (t) => {
    const b = t.getBBox(), m = t.getScreenCTM();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].map(
      ([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  const depth = (p, q) => {  // how far two convex quadrilaterals overlap (separating axes); <= 0: apart
    let least = Infinity;
    for (const poly of [p, q]) for (let i = 0; i < 4; i++) {
      const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4], len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const ax = -(y2 - y1) / len, ay = (x2 - x1) / len;
      const a = p.map(([x, y]) => x * ax + y * ay), b = q.map(([x, y]) => x * ax + y * ay);
      least = Math.min(least, Math.min(Math.max(...a), Math.max(...b)) - Math.max(Math.min(...a), Math.min(...b)));
    }
    return least;
  };
  for (const chart of main.querySelectorAll('.js-plotly-plot')) {
    if (!shown(chart)) continue;
    const box = chart.getBoundingClientRect();
    const left = Math.max(box.left, 0), right = Math.min(box.right, W);
    const name = (chart.querySelector('.gtitle')?.textContent || '(no title)').slice(0, 50);
    const texts = [];
    for (const t of chart.querySelectorAll('.main-svg text')) {
      if (t.closest('.hoverlayer') || !t.textContent.trim() || getComputedStyle(t).visibility === 'hidden') continue;
      const b = t.getBBox();
      if (b.width === 0 || b.height === 0) continue;
      const p = corners(t), xs = p.map((c) => c[0]), ys = p.map((c) => c[1]);
      const kind = (t.getAttribute('class') || t.parentNode.getAttribute('class') || 'text').split(' ')[0];
      if (Math.min(...xs) < left - 1 || Math.max(...xs) > right + 1 || Math.min(...ys) < box.top - 1
          || Math.max(...ys) > box.bottom + 1)
        faults.push(`leaves its chart "${name}": ${kind} "${t.textContent.slice(0, 50)}"`);
      const legend = t.closest('.legend')?.querySelector('.bg');
      if (legend) {
        const g = legend.getBoundingClientRect();
        if (Math.min(...xs) < g.left - 1 || Math.max(...xs) > g.right + 1)
          faults.push(`leaves its legend in "${name}": "${t.textContent.slice(0, 50)}"`);
      }
      texts.push([t, p]);
    }
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
      const [a, p] = texts[i], [b, q] = texts[j];
      if (a.contains(b) || b.contains(a) || depth(p, q) <= 2) continue;
      faults.push(`overlap in "${name}": "${a.textContent.slice(0, 30)}" and "${b.textContent.slice(0, 30)}"`);
    }
  }

  for (const popup of ['[data-testid="stSkillsNudge"]', '[data-testid="stToast"]'])
    if (document.querySelector(popup)) faults.push(`a pop-up of the framework is shown: ${popup}`);
  return faults;
}
