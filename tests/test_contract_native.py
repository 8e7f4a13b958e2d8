import pytest

from contract import CASES, NativeDriver


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_contract_native(case, model_dir):
    case(NativeDriver())
