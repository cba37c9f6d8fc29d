#!/usr/bin/env python3
"""Checks what headless Chromium made of an `alstats report --format html` page.

    browser_check.py png FILE.png...              each screenshot is a PNG that is not blank
    browser_check.py dom DOM.html REPORT.json [--hostile]
    browser_check.py link DOM.html HREF           a hosted link page: its first anchor is the prominent button to HREF,
                                                  and nothing loads (its one inline script aside)

`dom` reads the DOM that `chromium --dump-dom` printed after loading the page and the JSON report of
the same database, and checks: every figure is there with its SVG and table; the totals, the daily
rows, the referer apps and the hosted links (their install path too) show the JSON's numbers; the page loads nothing (no script, img, link,
iframe, object or embed element, no src/href attribute, no url() in a style) and no element carries an
event handler attribute. With --hostile it also checks that the hostile field values of .ci/browser
appear as text, and that none of their payloads ran (they would set data-pwned on <html>).

Exits 1 with one line per failure. Needs only the standard library and numpy.
"""
import html.parser
import json
import struct
import sys
import zlib

import numpy

FIGURES = [
    "fig-daily", "fig-outbound-daily", "fig-outbound-type", "fig-referer-apps", "fig-ref-categories",
    "fig-failure-reasons", "fig-links", "fig-installs",
]
HOSTILE = [
    "<script>window.__pwned=1</script>",
    '"><img src=x onerror="window.__pwned=1">',
    "<script>document.documentElement.dataset.pwned=1</script>",
    "'><img src=x onerror='document.documentElement.dataset.pwned=1'>",
]
LOADING = {"script", "img", "link", "iframe", "object", "embed", "audio", "video", "source", "base", "frame"}

failures = []


def fail(message):
    failures.append(message)


# MARK: PNG

def png_pixels(path, max_rows=1600):
    """The first max_rows rows of an 8-bit RGB or RGBA PNG as a numpy array (rows, width, channels)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    position, idat, header = 8, [], None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    stride = width * channels
    rows = min(height, max_rows)
    raw = zlib.decompressobj().decompress(b"".join(idat), rows * (stride + 1))
    previous = numpy.zeros(stride, dtype=numpy.int64)
    image = numpy.zeros((rows, stride), dtype=numpy.uint8)
    for row in range(rows):
        start = row * (stride + 1)
        kind = raw[start]
        line = numpy.frombuffer(raw, dtype=numpy.uint8, count=stride, offset=start + 1).astype(numpy.int64)
        if kind == 0:
            current = line
        elif kind == 1:  # Sub: a running sum per channel
            current = numpy.cumsum(line.reshape(width, channels), axis=0).reshape(stride) % 256
        elif kind == 2:  # Up
            current = (line + previous) % 256
        else:  # Average or Paeth: each byte depends on the one to its left
            current = line.tolist()
            above = previous.tolist()
            for index in range(stride):
                left = current[index - channels] if index >= channels else 0
                up = above[index]
                if kind == 3:
                    current[index] = (current[index] + (left + up) // 2) % 256
                else:
                    upper_left = above[index - channels] if index >= channels else 0
                    estimate = left + up - upper_left
                    a, b, c = abs(estimate - left), abs(estimate - up), abs(estimate - upper_left)
                    predictor = left if a <= b and a <= c else (up if b <= c else upper_left)
                    current[index] = (current[index] + predictor) % 256
            current = numpy.array(current, dtype=numpy.int64)
        image[row] = current
        previous = current
    return image.reshape(rows, width, channels), (width, height)


def check_png(path):
    try:
        pixels, (width, height) = png_pixels(path)
    except (OSError, ValueError, TypeError, zlib.error) as error:
        fail(f"{path}: cannot read the screenshot: {error}")
        return
    rgb = pixels[:, :, :3].reshape(-1, 3)
    colours = len(numpy.unique(rgb[:: max(1, len(rgb) // 200_000)], axis=0))
    spread = float(rgb.astype(numpy.float64).std())
    print(f"browser: {path}: {width}x{height}, {colours} colours in the first rows, std {spread:.1f}")
    if colours < 16 or spread < 5:
        fail(f"{path}: the screenshot looks blank ({colours} colours, standard deviation {spread:.1f})")


# MARK: DOM

class Page(html.parser.HTMLParser):
    """Elements, attributes and the text of elements with an id, from the dumped DOM."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []  # (tag, attributes)
        self.open = []  # stack of (tag, id)
        self.text_by_id = {}
        self.figure_svgs = {}
        self.figure_tables = {}
        self.rows = []  # text of the cells of every table row
        self.row = None
        self.cell = None
        self.text = []

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        self.tags.append((tag, attributes))
        figure = next((id for t, id in reversed(self.open) if t == "figure"), None)
        if figure and tag == "svg":
            self.figure_svgs[figure] = self.figure_svgs.get(figure, 0) + 1
        if figure and tag == "table":
            self.figure_tables[figure] = self.figure_tables.get(figure, 0) + 1
        if tag == "tr":
            self.row = []
        if tag in ("td", "th") and self.row is not None:
            self.cell = []
        if tag not in ("meta", "br", "hr", "input", "img", "link", "source", "col", "area", "base", "wbr"):
            self.open.append((tag, attributes.get("id")))
            if attributes.get("id"):
                self.text_by_id[attributes["id"]] = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        if tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None
        while self.open:
            open_tag, _ = self.open.pop()
            if open_tag == tag:
                break

    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell.append(data)
        for _, id in self.open:
            if id:
                self.text_by_id[id].append(data)

    def text_of(self, id):
        return "".join(self.text_by_id.get(id, [])).strip()


def count(value):
    return f"{value:,}"


def check_dom(dom_path, json_path, hostile):
    dom = open(dom_path, encoding="utf-8").read()
    report = json.load(open(json_path, encoding="utf-8"))
    page = Page()
    page.feed(dom)
    page.close()
    text = "".join(page.text)

    # Every chart, with its SVG and its table.
    ids = {attributes.get("id") for tag, attributes in page.tags if tag == "figure"}
    for figure in FIGURES:
        if figure not in ids:
            fail(f"figure {figure} is missing")
        elif page.figure_svgs.get(figure) != 1 or page.figure_tables.get(figure) != 1:
            fail(f"figure {figure} has {page.figure_svgs.get(figure, 0)} SVGs and {page.figure_tables.get(figure, 0)} tables")
    svgs = sum(1 for tag, _ in page.tags if tag == "svg")
    if svgs != len(FIGURES):
        fail(f"{svgs} SVG elements, expected {len(FIGURES)}")

    # The numbers of the JSON report.
    expected = {
        "total-events": count(report["totals"]["events"]),
        "total-nav-in": count(report["totals"]["by_name"]["al_nav_in"]),
        "total-nav-out": count(report["navigation"]["attempts"]),
        "total-ref-back-out": count(report["back_navigation"]["attempts"]),
        "timezone": report["window"]["timezone"],
    }
    for id, value in expected.items():
        if page.text_of(id) != value:
            fail(f"#{id} shows {page.text_of(id)!r}, the JSON report says {value!r}")
    rows = {tuple(row) for row in page.rows}
    for day in report["daily"]:
        row = (day["date"], count(day["al_nav_in"]), count(day["al_nav_out"]), count(day["al_ref_back_out"]))
        if row not in rows:
            fail(f"no daily row {row}")
    for app in report["referer_apps"]:
        name = app["name"] if app["name"] is not None else "(none)"
        if not any(row[:2] == [name, count(app["arrivals"])] for row in page.rows):
            fail(f"no referer app row for {name!r} with {app['arrivals']} arrivals")
    for reason in report["navigation"]["failure_reasons"]:
        error = reason["error"] if reason["error"] is not None else "(none)"
        if [error, count(reason["count"])] not in page.rows:
            fail(f"no failure reason row for {error!r} with {reason['count']} failures")
    for link in report.get("links", []):
        rate = link["arrival_rate"]
        tenths = None if rate is None else int(rate * 1000 + 0.5)  # as ReportText.percent rounds
        percent = "(none)" if tenths is None else f"{tenths // 10}.{tenths % 10}%"
        row = [link["slug"], count(link["hits"]), count(link["visitors"]), count(link["crawler_fetches"]),
               count(link["not_found"]), count(link["arrivals"]), percent]
        if row not in page.rows:
            fail(f"no hosted link row {row}")
        taps, installs = link["store_taps"], link["installs"]
        if sum(taps.values()) + sum(installs.values()) + link["deferred_opens"] == 0:
            continue
        rate = link["install_rate"]
        tenths = None if rate is None else int(rate * 1000 + 0.5)
        percent = "(none)" if tenths is None else f"{tenths // 10}.{tenths % 10}%"
        row = [link["slug"], count(sum(taps.values())), count(taps["ios"]), count(taps["android"]),
               count(sum(installs.values())), percent, count(link["deferred_opens"])]
        if not any(found[:7] == row for found in page.rows):
            fail(f"no install path row {row} of a hosted link")
    completeness = page.text_of("completeness")
    dropped = report['completeness']['dropped']
    events = "event" if dropped == 1 else "events"  # as String(counting:) words it
    if not completeness.startswith(f"{count(dropped)} {events} dropped, "
                                   f"{count(report['completeness']['rejected'])} rejected"):
        fail(f"#completeness shows {completeness!r}")

    # Self-contained, nothing that runs.
    for tag, attributes in page.tags:
        if tag in LOADING:
            fail(f"a <{tag}> element exists: {attributes}")
        for name, value in attributes.items():
            if name.startswith("on"):
                fail(f"<{tag}> has an event handler attribute {name}={value!r}")
            if name in ("src", "href", "xlink:href", "srcset", "action", "formaction"):
                fail(f"<{tag}> loads {name}={value!r}")
            if name == "style" and "url(" in (value or ""):
                fail(f"<{tag}> has a style with url(): {value!r}")
        if tag == "html" and "data-pwned" in attributes:
            fail("a hostile payload ran: <html data-pwned>")
    if "url(" in dom:
        fail("the page mentions url(), which could load a resource")

    if hostile:
        for value in HOSTILE:
            if value not in text:
                fail(f"the hostile value {value!r} does not appear as text")
        for raw in ('<img src="x"', "<img src=x", "<script>window", "<script>document"):
            if raw in dom:
                fail(f"the DOM contains the markup {raw!r}: a field was not escaped")


class Anchors(html.parser.HTMLParser):
    """The anchors of a hosted link page, in order: (class, href)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.anchors, self.loading = [], []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag == "a":
            self.anchors.append((values.get("class") or "", values.get("href") or ""))
        # The page's one inline script (the App Store button's copy to the pasteboard, allowed by its hash in the
        # page's Content-Security-Policy) loads nothing; any other script, or one with a src, would.
        if tag in LOADING and not (tag == "script" and not attrs):
            self.loading.append(tag)


def check_link(dom_path, first_href):
    """The page's first anchor is the prominent button and goes to `first_href`; nothing loads."""
    page = Anchors()
    page.feed(open(dom_path, encoding="utf-8").read())
    if not page.anchors:
        fail(f"{dom_path}: no anchor")
        return
    kind, href = page.anchors[0]
    if "primary" not in kind.split() or href != first_href:
        fail(f"{dom_path}: the first anchor is {kind!r} {href!r}, not the primary button to {first_href!r}")
    if page.loading:
        fail(f"{dom_path}: elements that load: {page.loading}")


def main(arguments):
    if len(arguments) >= 2 and arguments[0] == "png":
        for path in arguments[1:]:
            check_png(path)
    elif len(arguments) in (3, 4) and arguments[0] == "dom":
        check_dom(arguments[1], arguments[2], hostile="--hostile" in arguments[3:])
    elif len(arguments) == 3 and arguments[0] == "link":
        check_link(arguments[1], arguments[2])
    else:
        print(__doc__, file=sys.stderr)
        return 64
    for message in failures:
        print(f"browser: FAIL {message}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
