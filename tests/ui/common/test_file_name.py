"""The name an export offers says what the file holds, in characters every system takes."""

from app.ui.common.csv_file import file_name


def test_an_exports_name_says_what_it_holds_and_nothing_a_file_system_refuses():
    assert file_name("statement", "C0000001", "LT59 4010", "2024-01-01", "to", "2024-12-31") == (
        "statement-C0000001-LT59-4010-2024-01-01-to-2024-12-31.csv"
    )
    assert file_name("transfers", "sepa", "../etc/passwd", "a:b*c?") == (
        "transfers-sepa-etc-passwd-a-b-c.csv"
    )
    assert file_name("transfers", "sepa", "", "") == "transfers-sepa.csv"
    assert len(file_name("x" * 400)) <= 154
