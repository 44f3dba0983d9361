"""What a text pasted into the go-to box is, and the recent look-ups."""

from app.forms.goto import MATCHES, RECENT, Target, best_matches, remembered, target_of


def test_an_iban_with_spaces_and_any_case_is_an_iban():
    assert target_of("  lt59 4010 0000 0000 0001 ") == Target("iban", "LT594010000000000001")


def test_a_request_id_that_begins_like_an_iban_is_an_id():
    # 32 hex digits, "eb43…": IBAN-shaped, but no country's IBANs are written so
    assert target_of("eb43c4e374454c259fda7cfdef2caea2") == Target(
        "id", "eb43c4e374454c259fda7cfdef2caea2"
    )
    assert target_of("de89c4e374454c259fda7cfdef2caea2") == Target(
        "id",
        "de89c4e374454c259fda7cfdef2caea2",  # a country, not its IBANs' length
    )
    # an IBAN is one whatever is wrong in it, so that its check says what
    assert target_of("DE89370400440532013000") == Target("iban", "DE89370400440532013000")
    assert target_of("DE00370400440532013000") == Target("iban", "DE00370400440532013000")
    assert target_of("DE89 3704 0044 0532 0130") == Target("iban", "DE893704004405320130")
    assert target_of("XX89 3704 0044 0532 0130 00") == Target("iban", "XX89370400440532013000")


def test_an_email_an_id_and_what_is_neither():
    assert target_of("Ruta@Example.LT") == Target("email", "ruta@example.lt")
    assert target_of("C0000001") == Target("id", "C0000001")
    assert target_of("3f2c9a0e-7b1d-4c7e-9a55-0f6c2b1d9e01") == Target(
        "id", "3f2c9a0e-7b1d-4c7e-9a55-0f6c2b1d9e01"
    )
    assert target_of("") == (
        "Type or paste an IBAN, an e-mail, a name, an ID, or a request or error ID"
    )
    assert target_of("a@b") == "'a@b' is not an e-mail address like name@example.com"
    assert target_of("drop table; --") == "'drop table; --' is no IBAN, e-mail, name or ID"
    assert target_of("Rūta Testerytė") == Target("name", "Rūta Testerytė")
    assert target_of("O'Brien-Smith") == Target("name", "O'Brien-Smith")
    assert target_of("x" * 201) == "At most 200 characters (201 now)"
    assert "ID" in str(target_of("\ud800"))  # a lone surrogate is no ID


def test_the_recent_look_ups_newest_first_once_each_and_bounded():
    recent: list[str] = []
    for text in ["A1", "B2", "A1", *(f"X{n}" for n in range(RECENT))]:
        recent = remembered(recent, text)
    assert len(recent) == RECENT and recent[0] == f"X{RECENT - 1}"
    assert remembered(["A1", "B2"], " B2 ") == ["B2", "A1"]


def test_the_best_matches_begin_with_the_text_then_hold_it_any_case():
    clients = [
        ("C1", "Tom Carpet", "tom@x.lt"),
        ("C2", "Jonas Petraitis", "jonas@x.lt"),
        ("C3", "Ona", "pet.ona@x.lt"),
        ("C4", "Zed", "z@x.lt"),
    ]
    assert [c[0] for c in best_matches("PET", clients)] == ["C2", "C3", "C1"]
    # the name beginning with it before a word of it (a first name before a surname)
    petr = [
        ("C12", "Anna Petraitis", "anna@x.lt"),
        ("C15", "Petras Petraitis", "petras@x.lt"),
        ("C5", "Petras Berg", "petras.b@x.lt"),
    ]
    assert [c[0] for c in best_matches("petr", petr)] == ["C15", "C5", "C12"]
    assert best_matches("  ", clients) == []
    many = [(f"C{n}", f"Name {n}", f"n{n}@x.lt") for n in range(50)]
    assert len(best_matches("name", many)) == MATCHES
