"""The launch file's expression evaluator: arithmetic over the size's parameters, and nothing else."""
from __future__ import annotations

import pytest

from gpusim.errors import LaunchFileError
from gpusim.launch.expr import evaluate, evaluate_int

P = {"n": 1000, "w": 16, "x": 2.5}


@pytest.mark.parametrize("text, value", [
    ("cdiv(n, 256)", 4), ("n // 256", 3), ("n % 256", 232), ("2 ** 10", 1024), ("-w + 20", 4), ("(n + 1) * 2", 2002),
    ("n / 8", 125.0), ("min(n, w)", 16), ("max(n, w, 3)", 1000), ("ceil(x)", 3), ("floor(x)", 2), ("log2(w)", 4.0),
    ("cdiv(x, 2)", 2), (7, 7), (1.5, 1.5),
])
def test_arithmetic(text, value):
    assert evaluate(text, P, "t.toml: k") == value


@pytest.mark.parametrize("text, says", [
    ("__import__('os')", "unknown function '__import__'"),
    ("n.real", "attribute access is not allowed"),
    ("open('x')", "unknown function 'open'"),
    ("m * 2", "unknown name 'm' (the size's parameters: n, w, x)"),
    ("n[0]", "subscripts is not allowed"),
    ("n if n else 1", "if/else is not allowed"),
    ("n > 1", "comparisons is not allowed"),
    ("'abc'", "the constant is 'abc', not a number"),
    ("lambda: 1", "lambda is not allowed"),
    ("min(n, key=w)", "positional arguments only"),
    ("10 ** 10 ** 10", "too large"),
    ("n / 0", "division by zero"),
    ("n +", "is not an expression"),
])
def test_everything_else_is_refused_with_the_file_key_and_expression(text, says):
    with pytest.raises(LaunchFileError) as e:
        evaluate(text, P, "t.toml: [launch] grid[0]")
    assert str(e.value).startswith(f"t.toml: [launch] grid[0]: {text!r}") and says in str(e.value)


def test_a_string_parameter_is_not_a_number():
    with pytest.raises(LaunchFileError, match="parameter 'k' is 'abc', not a number"):
        evaluate("k + 1", {"k": "abc"}, "t.toml: v")


def test_integers_where_integers_are_needed():
    assert evaluate_int("n / 8", P, "w") == 125
    with pytest.raises(LaunchFileError, match=r"'n / 3' is 333.333, not an integer \(use // or cdiv\)"):
        evaluate_int("n / 3", P, "w")
    with pytest.raises(LaunchFileError, match="'w - 20' is -4; it must be >= 1"):
        evaluate_int("w - 20", P, "w", minimum=1)
    with pytest.raises(LaunchFileError, match="expected a number or an expression"):
        evaluate(True, P, "w")
