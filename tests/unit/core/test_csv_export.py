import pytest

from app.core.csv_export import neutralise, neutralise_row


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://evil")', '\'=HYPERLINK("http://evil")'),
        ("+1+2", "'+1+2"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("-12.50", "-12.50"),
        ("1234", "1234"),
        ("Groceries", "Groceries"),
        ("", ""),
        ("a=b", "a=b"),
    ],
)
def test_formula_cells_are_neutralised_numbers_kept(cell, written):
    assert neutralise(cell) == written


def test_row():
    assert neutralise_row(("=1", "x")) == ["'=1", "x"]
