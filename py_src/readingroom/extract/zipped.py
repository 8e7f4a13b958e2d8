"""Opening the zip containers (Office, OpenDocument, EPUB) safely, with stdlib zipfile.

Every refusal is typed: a file that is not a zip at all (often a renamed PDF, or an Office
file with a password, which Office stores in an OLE container), a broken zip, a zip whose
members would unpack past ``MAX_UNPACKED`` (a zip bomb, refused before anything is read),
and members encrypted inside the zip. Members are read with a hard cap, whatever the zip's
directory claims their size is. XML is parsed by ``xml.etree``; entity declarations are refused.
"""

from __future__ import annotations

import io
import re
import zipfile
from xml.etree import ElementTree as ET

from ..errors import ArchiveTooLarge, CorruptFile, Encrypted, WrongType

MAX_UNPACKED = 256 * 2**20  # all members together
MAX_RATIO = 200  # uncompressed : compressed, for members over 1 MB

_SIGNATURES = ((b"%PDF", "a PDF"), (b"\xd0\xcf\x11\xe0", "an OLE file"), (b"\x89PNG", "a PNG image"),
               (b"\xff\xd8\xff", "a JPEG image"), (b"{\\rtf", "an RTF file"), (b"<", "text or HTML"))


_MAIN_PARTS = (("word/document.xml", "a Word document"), ("xl/workbook.xml", "an Excel workbook"),
               ("ppt/presentation.xml", "a PowerPoint presentation"),
               ("META-INF/container.xml", "an EPUB e-book or OpenDocument file"))


def sniff(data: bytes) -> str:
    """What the first bytes say the file is, in words."""
    for magic, what in _SIGNATURES:
        if data[:1024].lstrip().startswith(magic):
            return what
    if data.startswith(b"PK\x03\x04") or data.startswith(b"PK\x05\x06"):
        return "a zip file"
    return "not a zip file"


class Package:
    """An opened container: ``xml(member)`` and ``raw(member)`` with the limits applied."""

    def __init__(self, name: str, data: bytes, kind: str):
        self.name, self.kind = name, kind
        if data[:4] == b"\xd0\xcf\x11\xe0":
            if "EncryptedPackage".encode("utf-16-le") in data:
                raise Encrypted(f"{name} is protected by a password; open it in its program, "
                                "remove the password, save it and add it again")
            raise WrongType(f"{name} is an old binary Office file, not {kind}; save it in the "
                            "current format (.docx, .xlsx, .pptx) and add it again")
        if not data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
            raise WrongType(f"{name} is {sniff(data)}, not {kind}; check its extension")
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as e:
            raise CorruptFile(f"{name} is damaged: it does not open as {kind} ({e})") from e
        total = sum(i.file_size for i in infos)
        for i in infos:
            if i.file_size > 2**20 and i.file_size > MAX_RATIO * max(1, i.compress_size):
                raise ArchiveTooLarge(f"{name} was refused: its part {i.filename} would unpack "
                                      f"{i.file_size // max(1, i.compress_size)} times its size "
                                      "(a zip bomb?)")
        if total > MAX_UNPACKED:
            raise ArchiveTooLarge(f"{name} was refused: it would unpack to {total / 2**20:.0f} MB; "
                                  f"the limit is {MAX_UNPACKED // 2**20} MB")
        # Part names as the package means them: some writers store "xl\\workbook.xml", and
        # Office's part names are the same whatever their case ("xl/SharedStrings.xml").
        self.infos = {i.filename.replace("\\", "/"): i for i in infos}
        self.folded = {name.lower(): i for name, i in self.infos.items()}
        self._read = 0

    def expect(self, member: str) -> None:
        """Refuse a zip that lacks ``member``: the wrong kind of file, or a damaged one."""
        if self.has(member):
            return
        for part, what in _MAIN_PARTS:
            if self.has(part):
                raise WrongType(f"{self.name} is {what}, not {self.kind}; check its extension")
        raise CorruptFile(f"{self.name} is damaged or not {self.kind}: it has no {member}")

    def has(self, member: str) -> bool:
        return member in self.infos or member.lower() in self.folded

    def raw(self, member: str) -> bytes:
        info = self.infos.get(member) or self.folded.get(member.lower())
        if info is None:
            raise CorruptFile(f"{self.name} is damaged or not {self.kind}: it has no {member}")
        if info.flag_bits & 1:
            raise Encrypted(f"{self.name} is encrypted; remove the password and add it again")
        room = MAX_UNPACKED - self._read
        try:
            with self.zip.open(info) as f:
                out = f.read(room + 1)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as e:
            raise CorruptFile(f"{self.name} is damaged: its part {member} does not unpack ({e})") from e
        self._read += len(out)
        if len(out) > room:
            raise ArchiveTooLarge(f"{self.name} was refused: it unpacks past "
                                  f"{MAX_UNPACKED // 2**20} MB (a zip bomb?)")
        return out

    def xml(self, member: str) -> ET.Element:
        return parse_xml(self.name, member, self.raw(member))

    def optional_xml(self, member: str) -> ET.Element | None:
        return self.xml(member) if self.has(member) else None


_STRICT = re.compile(rb"http://purl\.oclc\.org/ooxml/(?:(wordprocessingml|spreadsheetml|presentationml|drawingml)/main"
                     rb"|officeDocument/(relationships))")


def _usual(m: re.Match) -> bytes:
    return (b"http://schemas.openxmlformats.org/%s/2006/main" % m[1] if m[1]
            else b"http://schemas.openxmlformats.org/officeDocument/2006/relationships")


def transitional(data: bytes) -> bytes:
    """A part's XML with Strict Open XML's namespaces (Word's and Excel's "Strict Open XML"
    files) renamed to the usual (transitional) ones the readers look for."""
    return _STRICT.sub(_usual, data) if b"purl.oclc.org/ooxml/" in data else data


def parse_xml(name: str, member: str, data: bytes) -> ET.Element:
    data = transitional(data)
    if b"<!ENTITY" in data:  # no part of these formats declares entities (billion laughs)
        raise CorruptFile(f"{name} was refused: its part {member} declares XML entities")
    try:
        return ET.fromstring(data)
    except ET.ParseError as e:
        raise CorruptFile(f"{name} is damaged: its part {member} is not well-formed XML ({e})") from e


def local(tag: str) -> str:
    """``{namespace}name`` -> ``name``."""
    return tag.rsplit("}", 1)[-1]


def resolve(base: str, target: str) -> str:
    """A relationship's target, relative to the folder of the part ``base``."""
    if target.startswith("/"):
        return target.lstrip("/")
    parts = base.split("/")[:-1]
    for piece in target.split("/"):
        if piece == "..":
            if parts:
                parts.pop()
        elif piece and piece != ".":
            parts.append(piece)
    return "/".join(parts)


def relations(pkg: Package, part: str) -> list[tuple[str, str, str]]:
    """An OOXML part's relationships inside the package: (id, type, the target part's name);
    ``part`` "" for the package's own (``_rels/.rels``)."""
    folder, _, leaf = part.rpartition("/")
    rels = f"{folder}/_rels/{leaf}.rels" if folder else f"_rels/{leaf}.rels"
    root = pkg.optional_xml(rels)
    if root is None:
        return []
    return [(r.get("Id", ""), r.get("Type", ""), resolve(part, r.get("Target", ""))) for r in root
            if r.get("TargetMode") != "External"]


def relationships(pkg: Package, part: str) -> dict[str, str]:
    """An OOXML part's relationships: id -> the target part's name."""
    return {rid: target for rid, _type, target in relations(pkg, part)}


def related(links: list[tuple[str, str, str]], kind: str, usual: str) -> str:
    """The part that ``relations`` name as ``kind`` ("sharedStrings", "styles"), else ``usual``."""
    return next((t for _id, typ, t in links if typ.endswith("/" + kind)), usual)


def main_part(pkg: Package, usual: str) -> str:
    """An OOXML package's main part, as its ``_rels/.rels`` names it (``word/document2.xml``,
    or a ``workbook.xml`` at the top, in some writers' files) when it sits in the usual part's
    folder or has its name (a workbook named by a file called .docx is the wrong kind of file,
    not its main part), else the ``usual`` name; refused when the package lacks it."""
    folder, leaf = usual.split("/", 1)[0] + "/", usual.rsplit("/", 1)[-1]
    named = [t for _id, typ, t in relations(pkg, "") if typ.endswith("/relationships/officeDocument")]
    part = next((t for t in named if (t.startswith(folder) or t.rsplit("/", 1)[-1] == leaf) and pkg.has(t)), usual)
    pkg.expect(part)
    return part
