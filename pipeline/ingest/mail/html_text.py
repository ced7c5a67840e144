"""The text of an HTML mail body (stdlib :mod:`html.parser`; no rendering, no network).

Block elements and ``<br>`` become line breaks, scripts and styles are dropped,
entities are decoded; runs of blank lines collapse to one. Good enough for the
``body`` column and for finding the new text; layout is not the point.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

BLOCK_TAGS = {
    "br", "p", "div", "tr", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5",
    "h6", "blockquote", "pre", "hr", "dd", "dt", "title",
}  # fmt: skip
SKIP_TAGS = {"script", "style", "head"}
_BLANKS = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
_SPACES = re.compile(r"[ \t\r\f\v]+")


class _TextParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in SKIP_TAGS:
            self.skip += 1
        elif tag in BLOCK_TAGS:
            self.out.append("\n")
        elif tag == "td":
            self.out.append("\t")

    def handle_startendtag(self, tag, attrs):
        if tag in BLOCK_TAGS:
            self.out.append("\n")

    def handle_endtag(self, tag):
        if tag in SKIP_TAGS:
            self.skip = max(0, self.skip - 1)
        elif tag in BLOCK_TAGS and tag != "br":
            self.out.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.out.append(_SPACES.sub(" ", data.replace("\n", " ")))


def html_to_text(html: str) -> str:
    """Readable text of an HTML fragment or document."""
    parser = _TextParser()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # html.parser is lenient; never lose a body over a parser error
        return re.sub(r"<[^>]*>", " ", html)
    text = "".join(parser.out)
    lines = [line.strip() for line in text.split("\n")]
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()
