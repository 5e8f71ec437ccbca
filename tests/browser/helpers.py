"""Helpers of the browser tests (tests/browser/conftest.py has the fixtures): the phone layout's
measures, run in the page (the key columns on the screen, the controls a finger must hit), and
the page's language."""

LANGUAGES = ("es", "en", "ru")

# Where each key figure sits: for every key, the column headed th[data-key=key] when that head
# is shown, else an element [data-key=key] inside the row. Each must be visible and lie within
# [0, viewport width]; the table's box must not scroll sideways. Returns the problems found and
# the number of rows looked at.
KEY_CHECK = """([selector, keys]) => {
  const width = document.documentElement.clientWidth;
  const table = document.querySelector(selector);
  if (!table) return {problems: [`no ${selector}`], rows: 0};
  const problems = [];
  const inside = (el, what) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) problems.push(`${what}: hidden`);
    else if (r.left < 0 || r.right > width + 0.5)
      problems.push(`${what}: ${Math.round(r.left)}..${Math.round(r.right)} outside 0..${width}`);
  };
  const box = table.closest('.table-scroll');
  if (box && box.scrollWidth > box.clientWidth)
    problems.push(`${selector}: its box scrolls (${box.scrollWidth} > ${box.clientWidth})`);
  const rows = [...table.tBodies[0].rows];
  for (const key of keys) {
    const head = table.querySelector(`thead th[data-key="${key}"]`);
    if (!head) { problems.push(`${selector}: no head for ${key}`); continue; }
    const shown = head.getBoundingClientRect().width > 0;
    if (shown) inside(head, `${key} head`);
    rows.forEach((row, i) => {
      let cell = shown ? row.cells[head.cellIndex]
        : [...row.querySelectorAll(`[data-key="${key}"]`)].find((el) => el.getBoundingClientRect().width > 0);
      if (!cell) problems.push(`${key} row ${i + 1}: missing`);
      else inside(cell, `${key} row ${i + 1} «${cell.textContent.trim().slice(0, 30)}»`);
    });
  }
  return {problems, rows: rows.length};
}"""

# The controls a finger must hit: every visible link, button, input (a checkbox or radio by its
# label, which is its target), select, textarea and summary: names in tables, headings' links
# and detail lines included.
CONTROLS = """() => {
  const selector = 'a[href], button, input:not([type=hidden]), select, textarea, summary';
  const small = [];
  let count = 0;
  for (const el of document.querySelectorAll(selector)) {
    let target = el;
    if (el.matches('input[type=checkbox], input[type=radio]'))
      target = el.closest('label') || (el.id && document.querySelector(`label[for="${el.id}"]`)) || el;
    const r = target.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;  // not shown at this width
    count += 1;
    if (r.width < 44 || r.height < 44) {
      const words = (el.textContent || el.value || el.name || '').trim().replace(/\\s+/g, ' ').slice(0, 30);
      small.push(`${el.tagName.toLowerCase()} «${words}» ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
  }
  return {count, small};
}"""


def in_language(page, live_server, lang):
    """The site in ``lang`` for ``page`` from now on (the language cookie)."""
    page.context.add_cookies([{"name": "django_language", "value": lang, "url": live_server.url}])


def check_keys(page, selector, keys, rows):
    """The key columns of the table ``selector`` lie on the screen, in each of its ``rows``."""
    found = page.evaluate(KEY_CHECK, [selector, keys])
    assert found["problems"] == [], f"{page.url}: {found['problems']}"
    assert found["rows"] == rows, f"{page.url}: {found['rows']} rows in {selector}"
