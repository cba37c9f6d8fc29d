#!/usr/bin/env python3
"""The charts and tables of a report page as a browser draws them: Chromium driven by Selenium (chromium-driver).

    chart_layout.py URL...          (each a file:// static report or an http:// dashboard page)

For each page, at a phone's width (360 px, mobile emulation) and at a desktop's (1200 px), measured in the DOM:
- every text of every chart is drawn at 11 px or more, and lies whole inside its chart's figure (no label cut, no
  category name shortened with an ellipsis);
- the outbound types have one colour each, the same in every chart that shows them (app, web fail), three distinct;
- a hosted link's crawler fetches are not drawn in the failures' red;
- no table is a scroll box that hides rows: a table region scrolls down only when it is long (class "long").
Exits 1 on the first failure, saying what was measured.
"""
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

PHONE, DESKTOP = 360, 1200
MINIMUM_TEXT_PX = 11


def fail(message):
    print(f"chart_layout: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def browser():
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,2400"]:
        options.add_argument(argument)
    return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))


def set_width(driver, width):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": 2400, "deviceScaleFactor": 1, "mobile": width < 800})


# Every chart text: its drawn font size (the computed size times the SVG's scale) and whether it lies inside its
# figure; the first offender of each kind.
TEXTS = """
const out = {small: [], outside: [], cut: [], count: 0};
for (const svg of document.querySelectorAll('svg.chart')) {
  const figure = svg.closest('figure') || svg.parentElement;
  const box = figure.getBoundingClientRect();
  const scale = svg.getScreenCTM().a;
  for (const t of svg.querySelectorAll('text')) {
    if (!t.textContent.trim()) continue;
    out.count++;
    const px = parseFloat(getComputedStyle(t).fontSize) * scale;
    const r = t.getBoundingClientRect();
    const where = figure.id + ': ' + JSON.stringify(t.textContent);
    if (px < arguments[0]) out.small.push(where + ' at ' + px.toFixed(1) + ' px');
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5)
      out.outside.push(where + ' spans ' + r.left.toFixed(0) + '..' + r.right.toFixed(0)
        + ' in ' + box.left.toFixed(0) + '..' + box.right.toFixed(0));
    if (t.classList.contains('category') && t.textContent.endsWith('\u2026')) out.cut.push(where);
  }
}
return out;
"""

# The fill of the bars of a figure whose title (the rect's <title>) contains `needle`.
FILL = """
const [figure, needle] = arguments;
for (const rect of document.querySelectorAll('#' + figure + ' svg rect')) {
  const title = rect.querySelector('title');
  if (title && title.textContent.includes(needle)) return getComputedStyle(rect).fill;
}
return null;
"""

TABLES = """
return [...document.querySelectorAll('div.table')].filter(d => !d.classList.contains('long')
  && d.scrollHeight > d.clientHeight + 1).map(d => d.querySelector('table').id + ': '
  + d.clientHeight + ' of ' + d.scrollHeight + ' px shown');
"""


def check_texts(driver, url, width):
    texts = driver.execute_script(TEXTS, MINIMUM_TEXT_PX)
    if texts["count"] == 0:
        fail(f"{url}: no chart text found")
    if texts["small"]:
        fail(f"{url} at {width} px: chart text under {MINIMUM_TEXT_PX} px: {texts['small'][:3]}")
    if texts["outside"]:
        fail(f"{url} at {width} px: chart text outside its figure: {texts['outside'][:3]}")
    if texts["cut"]:
        fail(f"{url} at {width} px: category names cut: {texts['cut'][:3]}")
    return texts["count"]


def check_colours(driver, url):
    if not driver.find_elements("id", "fig-outbound-type"):
        return
    daily = {kind: driver.execute_script(FILL, "fig-outbound-daily", f" {label}:")
             for kind, label in [("app", "app opened"), ("web", "web fallback"), ("fail", "failed")]}
    bars = {kind: driver.execute_script(FILL, "fig-outbound-type", f"{kind} navigations:")
            for kind in ["app", "web", "fail"]}
    # A type without navigations has no column per day: the types drawn in both charts are compared.
    shown = [kind for kind in daily if daily[kind] is not None]
    if None in bars.values() or not shown:
        fail(f"{url}: the outbound charts lack a type's bars: by type {bars}, per day {daily}")
    if any(bars[kind] != daily[kind] for kind in shown) or len(set(bars.values())) != 3:
        fail(f"{url}: the outbound types' colours differ between charts or are not three: {bars} and {daily}")
    crawlers = driver.execute_script(FILL, "fig-links", "crawler fetches:")
    if crawlers is not None and crawlers == bars["fail"]:
        fail(f"{url}: crawler fetches are drawn in the failures' red {crawlers}")


def main():
    driver = browser()
    try:
        for url in sys.argv[1:]:
            driver.get(url)
            counted = []
            for width in [PHONE, DESKTOP]:
                set_width(driver, width)
                driver.get(url)
                counted.append(check_texts(driver, url, width))
            check_colours(driver, url)
            hidden = driver.execute_script(TABLES)
            if hidden:
                fail(f"{url}: tables whose box hides rows: {hidden}")
            print(f"chart_layout: {url}: {counted[0]} chart texts at 11 px or more and whole at {PHONE} and "
                  f"{DESKTOP} px, type colours one per type, no table cut")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
