"""The contract cases against the browser side, and native vs browser answer for answer."""

import pytest

from contract import CASES, CORPUS, QUERIES, NativeDriver, comparable
from driver import BrowserDriver


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_contract_browser(case, page):
    case(BrowserDriver(page))


def test_native_and_browser_give_the_same_answers(page, model_dir):
    native, browser = NativeDriver(), BrowserDriver(page)
    native.add(CORPUS)
    browser.add(CORPUS)
    for q in QUERIES:
        for opts in ({}, {"mode": "lexical"}, {"mode": "vector", "floor": 0.0}):
            assert comparable(browser.query(q, opts)) == comparable(native.query(q, opts)), (q, opts)
