"""EPUB (2 and 3): chapters in spine order, each titled from the table of contents (the
EPUB 3 nav, else the NCX, else the chapter's first heading), headings inside a chapter
under it. A book whose content is encrypted (DRM) is refused: only font obfuscation, which
every reader undoes, is allowed."""

from __future__ import annotations

from urllib.parse import unquote
from xml.etree import ElementTree as ET

from ..errors import CorruptFile, EmptyDocument, Encrypted
from .document import Document, Section
from .html import _Text, html_to_text, sections as html_sections
from .text import markdown_tables
from .zipped import Package, local, resolve

OPF = "{http://www.idpf.org/2007/opf}"
NCX = "{http://www.daisy.org/z3986/2005/ncx/}"
ENC = "{http://www.w3.org/2001/04/xmlenc#}"
FONT_OBFUSCATION = {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}


def _check_drm(pkg: Package, name: str) -> None:
    if pkg.has("META-INF/rights.xml"):
        raise Encrypted(f"{name} is protected by DRM (it has META-INF/rights.xml); only DRM-free "
                        "e-books can be read")
    root = pkg.optional_xml("META-INF/encryption.xml")
    if root is None:
        return
    for data in root.iter(f"{ENC}EncryptedData"):
        method = data.find(f"{ENC}EncryptionMethod")
        if method is None or method.get("Algorithm") not in FONT_OBFUSCATION:
            raise Encrypted(f"{name} is protected by DRM (its chapters are encrypted); only "
                            "DRM-free e-books can be read")


class _Links(_Text):
    """The nav document's links: (href, title, depth in its list, in the contents nav) in order."""

    def __init__(self):
        super().__init__(navigation=True)  # the contents are what it reads
        self.links: list[tuple[str, str, int, bool]] = []
        self.href: str | None = None
        self.navs: list[bool] = []  # the open <nav> elements: is each the table of contents?
        self.depth = 0  # open <li> elements

    def handle_starttag(self, tag, attrs):
        if tag == "nav":
            kinds = " ".join(v or "" for k, v in attrs if k.endswith("type")).split()
            self.navs.append("toc" in kinds)
        self.depth += tag == "li"
        if tag == "a":
            self.href, self.parts = dict(attrs).get("href"), []
        super().handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        super().handle_endtag(tag)
        if tag == "nav" and self.navs:
            self.navs.pop()
        self.depth -= tag == "li" and self.depth > 0
        if tag == "a" and self.href:
            self.links.append((self.href, " ".join("".join(self.parts).split()), self.depth, any(self.navs)))
            self.href = None


def _titled(links: list[tuple[str, str, int]]) -> dict[str, str]:
    """Chapter part -> its title from (part#fragment, title, depth) entries in contents order:
    a link to the whole part; else the one entry into it, or the first when the others are
    below it (a chapter and its sections). A part that entries of one level point into (a
    book in one file) takes no title from them: its own headings title it."""
    whole: dict[str, str] = {}
    into: dict[str, list[tuple[str, int]]] = {}
    for href, title, depth in links:
        part, _, fragment = href.partition("#")
        if not fragment:
            whole.setdefault(part, title)
        else:
            into.setdefault(part, []).append((title, depth))
    out = {}
    for part, entries in into.items():
        (title, depth), rest = entries[0], entries[1:]
        if all(d > depth for _t, d in rest):
            out[part] = title
    return {**out, **whole}


def _ncx_points(parent: ET.Element, depth: int = 1):
    for point in parent.findall(f"{NCX}navPoint"):
        label, content = point.find(f"{NCX}navLabel/{NCX}text"), point.find(f"{NCX}content")
        if label is not None and content is not None:
            yield content.get("src", ""), " ".join((label.text or "").split()), depth
        yield from _ncx_points(point, depth + 1)


def _resolved(base: str, href: str) -> str:
    """A contents entry's target part, with its #fragment kept."""
    part, hash_, fragment = href.partition("#")
    return resolve(base, unquote(part)) + hash_ + fragment


def _titles(pkg: Package, opf_path: str, manifest: dict[str, tuple[str, str, str]]) -> dict[str, str]:
    """Chapter part -> its title in the book's table of contents (the EPUB 3 nav's contents,
    else the NCX)."""
    out: dict[str, str] = {}
    nav = next((href for href, _mt, props in manifest.values() if "nav" in props.split()), None)
    if nav and pkg.has(nav):
        links = _Links()
        links.feed(pkg.raw(nav).decode("utf-8", "replace"))
        toc = [x for x in links.links if x[3]] or links.links
        out = _titled([(_resolved(nav, h), t, d) for h, t, d, _ in toc])
    ncx = next((href for href, mt, _p in manifest.values() if mt == "application/x-dtbncx+xml"), None)
    if ncx and pkg.has(ncx):
        root = pkg.xml(ncx).find(f"{NCX}navMap")
        points = [(_resolved(ncx, h), t, d) for h, t, d in _ncx_points(root)] if root is not None else []
        for part, title in _titled(points).items():
            out.setdefault(part, title)
    return out


def read(name: str, data: bytes) -> Document:
    pkg = Package(name, data, "an EPUB e-book")
    pkg.expect("META-INF/container.xml")
    _check_drm(pkg, name)
    rootfile = next((r.get("full-path", "") for r in pkg.xml("META-INF/container.xml").iter()
                     if local(r.tag) == "rootfile"), "")
    if not rootfile:
        raise CorruptFile(f"{name} is damaged or not an EPUB e-book: its META-INF/container.xml names no package file")
    opf = pkg.xml(rootfile)
    manifest = {i.get("id", ""): (resolve(rootfile, unquote(i.get("href", ""))), i.get("media-type", ""),
                                  i.get("properties", "")) for i in opf.iter(f"{OPF}item")}
    titles = _titles(pkg, rootfile, manifest)
    sections: list[Section] = []
    chapters = 0
    for ref in opf.iter(f"{OPF}itemref"):
        href, media, props = manifest.get(ref.get("idref", ""), ("", "", ""))
        if not href or not pkg.has(href) or "html" not in media or "nav" in props.split():
            continue
        chapters += 1
        text = markdown_tables(html_to_text(pkg.raw(href).decode("utf-8", "replace")))
        if not text.strip():
            continue
        parts = html_sections(text)
        title = titles.get(href) or next((p.heading_path[0] for p in parts if p.heading_path), "")
        base = (title,) if title else (f"Chapter {chapters}",)
        for p in parts:
            inner = p.heading_path[1:] if p.heading_path[:1] == base else p.heading_path
            sections.append(Section(base + tuple(inner), p.text))
    if not sections:
        raise EmptyDocument(f"{name} has no text to index")
    return Document("epub", sections, pages=chapters)
