#!/usr/bin/env python3
"""Reads a hosted App Link page (`HostedLinkPage`) with Python's html.parser, tag by tag.

    links_page.py PAGE.html [ORIGIN]

Prints one JSON object: "meta", the [property, content] of every <meta property> in order,
"hrefs", every <a href> in order, and "copies", every data-alstats-copy in order. Exits 1 with one line
per failure when the page holds an iframe, object, embed or link element, a script that is not inline
or whose SHA-256 is not among the script-src hashes of the page's Content-Security-Policy (which must
allow scripts by hash only), an img whose src is not on ORIGIN (the page's own; without ORIGIN, any
img), a style whose text loads anything (url(, @import, expression), an on* event handler attribute,
or an href or content whose scheme is javascript:, data:, vbscript: or file:.
HostedLinksTests compares the output with our own MetaTagParser. Needs only the standard library.
"""
import base64
import hashlib
import html.parser
import json
import sys

FORBIDDEN_ELEMENTS = {"iframe", "object", "embed", "link", "base", "frame", "audio", "video", "source"}
LOADING_CSS = ("url(", "@import", "expression(")
REFUSED_SCHEMES = ("javascript:", "data:", "vbscript:", "file:")


class Page(html.parser.HTMLParser):
    def __init__(self, origin):
        super().__init__(convert_charrefs=True)
        self.origin = origin
        self.meta, self.hrefs, self.copies, self.failures = [], [], [], []
        self.in_style = False
        self.script = None  # the text of the script being read
        self.scripts, self.policies = [], []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag in FORBIDDEN_ELEMENTS:
            self.failures.append(f"element <{tag}>")
        if tag == "style":
            self.in_style = True
        if tag == "script":
            if attrs:
                self.failures.append(f"a script with attributes {attrs!r}")
            self.script = ""
        if tag == "meta" and (values.get("http-equiv") or "").lower() == "content-security-policy":
            self.policies.append(values.get("content") or "")
        if tag == "img":
            src = values.get("src") or ""
            if not self.origin or not src.lower().startswith(self.origin.lower() + "/"):
                self.failures.append(f"img loads {src!r}, not on the page's own origin")
        for name, _ in attrs:
            if name.startswith("on"):
                self.failures.append(f"event handler {name} on <{tag}>")
        if tag == "meta" and "property" in values:
            self.meta.append([values["property"], values.get("content")])
            self.check_url(values.get("content"), f"meta {values['property']}")
        if tag == "a" and "href" in values:
            self.hrefs.append(values["href"])
            self.check_url(values["href"], "a href")
        if "data-alstats-copy" in values:
            self.copies.append(values["data-alstats-copy"])
            self.check_url(values["data-alstats-copy"], "data-alstats-copy")

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False
        if tag == "script" and self.script is not None:
            self.scripts.append(self.script)
            self.script = None

    def check_scripts(self):
        """Every script is allowed by a hash of the page's policy, which allows nothing else."""
        if not self.scripts:
            return
        sources = []
        for policy in self.policies:
            for directive in policy.split(";"):
                words = directive.split()
                if words and words[0] == "script-src":
                    sources += words[1:]
        if not sources or any(not source.startswith("'sha256-") for source in sources):
            self.failures.append(f"scripts are not allowed by hash only: {sources!r}")
        for script in self.scripts:
            digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
            if f"'sha256-{digest}'" not in sources:
                self.failures.append(f"a script whose hash sha256-{digest} the policy does not allow")

    def handle_data(self, data):
        if self.script is not None:
            self.script += data
        if self.in_style and any(marker in data.lower() for marker in LOADING_CSS):
            self.failures.append("a style loads something")

    def check_url(self, value, where):
        if value and value.strip().lower().startswith(REFUSED_SCHEMES):
            self.failures.append(f"{where} follows {value!r}")


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    page = Page(sys.argv[2] if len(sys.argv) == 3 else None)
    with open(sys.argv[1], encoding="utf-8") as file:
        page.feed(file.read())
    page.close()
    page.check_scripts()
    print(json.dumps({"meta": page.meta, "hrefs": page.hrefs, "copies": page.copies}))
    for failure in page.failures:
        print(failure, file=sys.stderr)
    return 1 if page.failures else 0


if __name__ == "__main__":
    sys.exit(main())
