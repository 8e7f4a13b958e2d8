"""SmartArt in PowerPoint and Word: a diagram's text lives in its own data part, so it was not
read at all (Apache POI's smartart-rotated-text.pptx: "no text to index"). Now each node is a line,
indented under its parent, in the diagram's order; a node's empty placeholder is not a line."""

from __future__ import annotations

import formats
from formats_extra import rewritten
from readingroom.extract import extract

DGM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
NODES = [("doc", "0", ""), ("node", "1", "Survey the coast"), ("node", "2", "Build the tower"),
         ("node", "3", "Light the lamp"), ("node", "4", "Order the lens"), ("node", "5", ""),
         ("parTrans", "6", "")]
LINKS = [("0", "1", 0), ("0", "2", 1), ("0", "3", 2), ("2", "4", 0), ("2", "5", 1)]  # 4 and 5 under 2


def _data() -> str:
    points = "".join(
        f'<dgm:pt modelId="{mid}"{"" if kind == "node" else f" type={chr(34)}{kind}{chr(34)}"}><dgm:t><a:bodyPr/>'
        + (f"<a:p><a:r><a:t>{text}</a:t></a:r></a:p>" if text else "<a:p/>") + "</dgm:t></dgm:pt>"
        for kind, mid, text in NODES)
    # listed out of order: the diagram's order is srcOrd's
    links = "".join(f'<dgm:cxn modelId="c{src}{dst}" srcId="{src}" destId="{dst}" srcOrd="{order}" destOrd="0"/>'
                    for src, dst, order in reversed(LINKS))
    return (f'<dgm:dataModel xmlns:dgm="{DGM}" xmlns:a="{A}"><dgm:ptLst>{points}</dgm:ptLst>'
            f"<dgm:cxnLst>{links}</dgm:cxnLst></dgm:dataModel>")


GRAPHIC = (f'<a:graphic xmlns:a="{A}"><a:graphicData uri="{DGM}"><dgm:relIds xmlns:dgm="{DGM}" '
           f'xmlns:r="{REL}" r:dm="rId90" r:lo="rId91"/></a:graphicData></a:graphic>')
RELATION = f'<Relationship Id="rId90" Type="{REL}/diagramData" Target="{{target}}"/></Relationships>'
EXPECTED = "- Survey the coast\n- Build the tower\n  - Order the lens\n- Light the lamp"


def test_a_slides_smartart_is_read_as_lines_under_their_parents():
    def change(name, body):
        if name == "ppt/slides/slide1.xml":
            frame = (f'<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="9" name="Diagram 1"/><p:cNvGraphicFramePr/>'
                     f'<p:nvPr/></p:nvGraphicFramePr><p:xfrm/>{GRAPHIC}</p:graphicFrame></p:spTree>')
            body = body.replace(b"</p:spTree>", frame.encode())
        elif name == "ppt/slides/_rels/slide1.xml.rels":
            body = body.replace(b"</Relationships>", RELATION.format(target="../diagrams/data1.xml").encode())
        return name, body
    data = formats.with_member(rewritten(formats.pptx_bytes(), change), "ppt/diagrams/data1.xml", _data())
    slide = extract("plan.pptx", data).sections[0]
    assert slide.text == "Welcome\n\nAgenda for the offsite\n\n" + EXPECTED, slide.text


def test_a_word_documents_smartart_is_read_where_it_stands():
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    wp = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
    document = (f'<w:document xmlns:w="{w}" xmlns:wp="{wp}"><w:body><w:p><w:r><w:t>The plan:</w:t></w:r></w:p>'
                f'<w:p><w:r><w:drawing><wp:inline><wp:docPr id="1" name="Diagram 1"/>{GRAPHIC}</wp:inline>'
                f'</w:drawing></w:r></w:p><w:p><w:r><w:t>Then wait for dusk.</w:t></w:r></w:p></w:body></w:document>')

    def change(name, body):
        if name == "word/_rels/document.xml.rels":
            body = body.replace(b"</Relationships>", RELATION.format(target="diagrams/data1.xml").encode())
        return name, body
    data = formats.with_member(rewritten(formats.docx_bytes(), change), "word/document.xml", document)
    data = formats.with_member(data, "word/diagrams/data1.xml", _data())
    assert extract("plan.docx", data).text() == f"The plan:\n\n{EXPECTED}\n\nThen wait for dusk."
