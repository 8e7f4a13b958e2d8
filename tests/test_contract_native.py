import pytest

from contract import CASES, NativeDriver


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_contract_native(case, model_dir, location):
    """Every case on both stores: SQLite (apsw + sqlite-vec) and Postgres with pgvector."""
    case(NativeDriver(location))


def test_an_unnumbered_query_is_never_cancelled_by_ids_used_before(model_dir):
    """The page numbers its questions; a caller without numbers (an automation call, another
    test in this process) must not find its query 'replaced by a newer one' because of them."""
    d = NativeDriver()
    d.add([{"name": "tea.txt", "text": "Green tea is steamed; black tea is oxidised."}])
    d._run(d.worker.query("tea", "{}", 41))
    d._run(d.worker.ask("tea", "[]", "{}", 42))
    r = d.query("green tea")
    assert "error" not in r and r["results"][0]["doc_name"] == "tea.txt"
    assert d._run(d.worker.query("tea", "{}", 40))["error"]["type"] == "cancelled"  # an older number is
