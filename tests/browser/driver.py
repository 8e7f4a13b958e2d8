"""The browser side of the contract: ``window.readingroom`` in a live page."""

from __future__ import annotations


class BrowserDriver:
    def __init__(self, page):
        self.page = page

    def add(self, docs):
        return self.page.evaluate("(docs) => window.readingroom.addDocuments(docs)", docs)

    def query(self, text, options=None):
        return self.page.evaluate("([t, o]) => window.readingroom.query(t, o)", [text, options or {}])

    def status(self):
        return self.page.evaluate("() => window.readingroom.status()")

    def delete(self, doc_id):
        return self.page.evaluate("(id) => window.readingroom.deleteDocument(id)", doc_id)

    def documents(self, ids=None, page=None):
        return self.page.evaluate("([ids, page]) => window.readingroom.documents(ids, page)", [ids, page])

    def embed(self, texts):
        return self.page.evaluate("(t) => window.readingroom.embed(t)", texts)
