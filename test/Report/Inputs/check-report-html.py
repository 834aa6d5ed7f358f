#!/usr/bin/env python3
"""Checks the structure of an HTML report of clang-maxcode (report.test).

The page must open in a browser with no network: no script at all, no
element that loads anything (src, href, srcset, url(), @import), and only
inline styles. It must hold the chart (inline SVG with the best-speedup
line), the search tree, the winning diff and one table row per evaluation.
Prints what it found, one fact a line, for FileCheck.
"""
import html.parser
import re
import sys


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []
        self.loads = []
        self.sections = []
        self.stack = []
        self.rows = 0
        self.tree_nodes = 0
        self.diff_lines = {"add": 0, "del": 0}
        self.polyline_points = 0
        self.style_text = ""
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        for name in ("src", "href", "srcset", "action", "data", "poster"):
            if name in a:
                self.loads.append("%s %s=%s" % (tag, name, a[name]))
        if tag == "section":
            self.sections.append(a.get("id"))
        if tag == "tr" and "tbody" in self.stack:
            self.rows += 1
        if tag == "li" and "node" in a.get("class", "").split():
            self.tree_nodes += 1
        if tag == "span" and a.get("class") in self.diff_lines:
            self.diff_lines[a["class"]] += 1
        if tag == "polyline":
            self.polyline_points = len(a.get("points", "").split())
        if tag == "style":
            self.in_style = True
        if tag not in ("meta", "line", "circle", "polyline"):
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if self.in_style:
            self.style_text += data


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    evaluations = int(sys.argv[2])
    p = Page()
    p.feed(text)
    p.close()
    print("doctype:", text.startswith("<!DOCTYPE html>"))
    print("scripts:", p.tags.count("script"))
    print("external loads:", len(p.loads), *p.loads)
    print("external styles:",
          len(re.findall(r"url\(|@import", p.style_text)) + p.tags.count("link"))
    print("urls anywhere:", len(re.findall(r"(?:https?|ftp)://", text)))
    print("sections:", " ".join(s or "?" for s in p.sections))
    print("svg:", p.tags.count("svg"), "polyline:", p.tags.count("polyline"))
    # The step line starts at the baseline and has two points per evaluation.
    print("chart points match:", p.polyline_points == 1 + 2 * evaluations)
    print("tree nodes match:", p.tree_nodes == evaluations + 1)
    print("table rows match:", p.rows == evaluations)
    print("diff lines:", "add" if p.diff_lines["add"] else "-",
          "del" if p.diff_lines["del"] else "-")
    print("unclosed:", " ".join(p.stack) or "none")


if __name__ == "__main__":
    main()
