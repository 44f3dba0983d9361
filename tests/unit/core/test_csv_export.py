import csv
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.csv_export import csv_lines, neutralise, neutralise_row


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


def written_by_csv(rows) -> list[str]:
    """The csv module's writer's lines, one a row."""
    lines = []
    for row in rows:
        buffer = io.StringIO(newline="")
        csv.writer(buffer).writerow(row)
        lines.append(buffer.getvalue())
    return lines


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(st.text(alphabet='ab ,"\r\n\0\u2028é\U0001f600', max_size=4), max_size=4),
        max_size=6,
    )
)
def test_csv_lines_are_the_csv_writers_lines(rows):
    assert csv_lines(rows) == written_by_csv(rows)


@pytest.mark.parametrize(
    "rows",
    [
        [["a", "b"], ["c", "d"]],  # joined by commas
        [["a,b", "c"]],  # a comma: quoted
        [['say "hi"', "x"]],  # a quote: doubled, quoted
        [["two\r\nlines", "x"], ["plain", "y"]],  # a line end: quoted
        [[""]],  # a lone empty field: ""
        [["", ""]],
        [[]],
        [[1, 2.5, None]],  # not text: as the writer formats it
        [],
    ],
)
def test_csv_lines_quote_only_where_the_csv_writer_does(rows):
    assert csv_lines(rows) == written_by_csv(rows)
