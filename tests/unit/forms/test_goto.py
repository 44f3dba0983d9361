"""What a text pasted into the go-to box is, and the recent look-ups."""

from app.forms.goto import RECENT, Target, remembered, target_of


def test_an_iban_with_spaces_and_any_case_is_an_iban():
    assert target_of("  lt59 4010 0000 0000 0001 ") == Target("iban", "LT594010000000000001")


def test_an_email_an_id_and_what_is_neither():
    assert target_of("Ruta@Example.LT") == Target("email", "ruta@example.lt")
    assert target_of("C0000001") == Target("id", "C0000001")
    assert target_of("3f2c9a0e-7b1d-4c7e-9a55-0f6c2b1d9e01") == Target(
        "id", "3f2c9a0e-7b1d-4c7e-9a55-0f6c2b1d9e01"
    )
    assert target_of("") == (
        "Type or paste an IBAN, an e-mail, an order or client ID, or a request ID"
    )
    assert target_of("a@b") == "'a@b' is not an e-mail address like name@example.com"
    assert "letters, digits and - . _ : only" in str(target_of("drop table; --"))
    assert target_of("x" * 201) == "At most 200 characters (201 now)"
    assert "ID" in str(target_of("\ud800"))  # a lone surrogate is no ID


def test_the_recent_look_ups_newest_first_once_each_and_bounded():
    recent: list[str] = []
    for text in ["A1", "B2", "A1", *(f"X{n}" for n in range(RECENT))]:
        recent = remembered(recent, text)
    assert len(recent) == RECENT and recent[0] == f"X{RECENT - 1}"
    assert remembered(["A1", "B2"], " B2 ") == ["B2", "A1"]
