"""What a person sees, checked in the browser on any page (issue 59): no word broken across two lines,
nothing sticking out of the screen's sides, every text field and list showing its whole value. Run as
``problems(page)``: a list of sentences, empty when the page is right."""
from __future__ import annotations

LAYOUT = r"""() => {
  const vw = document.documentElement.clientWidth;
  const out = [];
  const desc = (e) => {
    const id = e.id ? '#' + e.id : '';
    const cls = typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\s+/).join('.') : '';
    const me = `${e.tagName.toLowerCase()}${id}${cls}`;
    return e.parentElement && e.parentElement !== document.body && !id ? `${desc(e.parentElement)} > ${me}` : me;
  };
  const shown = (e) => {
    for (let x = e; x; x = x.parentElement) {
      const s = getComputedStyle(x);
      if (s.display === 'none' || s.visibility === 'hidden' || x.hidden) return false;
    }
    return e.getClientRects().length > 0;
  };
  // inside a box that scrolls or clips sideways, being wider than the screen is the box's business
  const clipped = (e) => {
    for (let x = e.parentElement; x && x !== document.body; x = x.parentElement) {
      const o = getComputedStyle(x).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') return true;
    }
    return false;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest('script, style, [aria-hidden=true]') || !shown(p)) continue;
    const words = /[^\s\-–—\/]+/g;
    let m;
    while ((m = words.exec(n.data))) {
      if (m[0].length < 2) continue;
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
      if (tops.size > 1) out.push(`"${m[0]}" breaks across lines in ${desc(p)}`);
    }
  }
  for (const e of document.querySelectorAll('body *')) {
    if (!shown(e) || clipped(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.width > 0 && (r.right > vw + 1 || r.left < -1)) out.push(`${desc(e)} sticks out of the screen (${Math.round(r.left)}..${Math.round(r.right)} of ${vw} px)`);
  }
  // text wider than its own box (it spills over whatever is beside it)
  for (const e of document.querySelectorAll('body *')) {
    if (e.children.length || !e.textContent.trim() || !shown(e)) continue;
    const s = getComputedStyle(e);
    if (s.display === 'inline' || s.overflowX !== 'visible' || s.textOverflow === 'ellipsis') continue;
    if (e.scrollWidth > e.clientWidth + 1) out.push(`the text of ${desc(e)} is wider than its box (${e.scrollWidth} > ${e.clientWidth} px)`);
  }
  // a box sticking out of the box it is in (a clock's label out of its face), where that one does not clip
  for (const e of document.querySelectorAll('body *')) {
    let p = e.parentElement;
    while (p && p !== document.body && getComputedStyle(p).display === 'contents') p = p.parentElement;
    if (!p || p === document.body || !shown(e) || clipped(e)) continue;
    const s = getComputedStyle(e);
    if (s.position === 'absolute' || s.position === 'fixed' || s.display === 'inline' || s.display === 'contents') continue;
    const r = e.getBoundingClientRect(), q = p.getBoundingClientRect();
    if (r.width > 0 && (r.right > q.right + 1 || r.left < q.left - 1))
      out.push(`${desc(e)} sticks out of its box (${Math.round(r.left)}..${Math.round(r.right)} in ${Math.round(q.left)}..${Math.round(q.right)})`);
  }
  for (const i of document.querySelectorAll('input[type=number], input[type=text], input:not([type]), select')) {
    if (!shown(i) || !i.value) continue;
    if (i.scrollWidth > i.clientWidth + 2 || i.clientWidth < 24) out.push(`${desc(i)} cannot show its value ${JSON.stringify(i.value)}`);
  }
  return [...new Set(out)];
}"""


def problems(page) -> list[str]:
    return page.evaluate(LAYOUT)
