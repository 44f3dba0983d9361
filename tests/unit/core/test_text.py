import json

from app.core.text import printable


def test_server_text_loses_its_control_characters_and_its_length():
    hostile = "Unknown bank\x1b]0;pwned\x07\nInjected line: all good\r"
    assert printable(hostile) == "Unknown bank?]0;pwned??Injected line: all good?"
    assert printable("x" * 300) == "x" * 200 + "…"
    assert printable("Eglė Ž") == "Eglė Ž"


def test_server_text_quoted_in_a_terminal_has_no_card_number_code_or_credential():
    """The window's messages and the logs mask them; the commands printed them as sent."""
    from app.core.text import terminal_safe

    said = (
        "Declined 4111111111111111: card 4111 1111 1111 1111 declined;\n"
        "Authorization: Basic ZGVtbzpkZW1v cvv=123"
    )
    masked = (
        "Declined ************1111: card ************1111 declined;\n"
        "Authorization: Basic *** cvv=***"
    )
    assert terminal_safe(said) == masked
    assert printable(said) == masked.replace("\n", "?")
    assert printable("IBAN LT12 1000 0111 0100 1000 stays") == "IBAN LT12 1000 0111 0100 1000 stays"


def test_a_card_number_at_a_quotes_cut_is_never_shown_in_part():
    across_the_cut = printable("x" * 190 + " 4111 1111 1111 1111 rest")
    assert across_the_cut.startswith("x" * 190) and "4111" not in across_the_cut
    # twenty digits are no card, but the cut would make sixteen of them one
    cut_into_a_card = printable("x" * 184 + "4111111111111111" + "0000")
    assert cut_into_a_card == "x" * 184 + "…"
    # nor when its groups stand apart by a no-break space or a slash, or its digits are
    # full-width
    for separator in ("\u00a0", "/", "\u200b"):
        cut = printable("x" * 190 + separator.join(["4111", "1111", "1111", "1111"]) + " rest")
        assert cut.startswith("x" * 190) and "41" not in cut and "11" not in cut
    cut = printable("x" * 192 + "\uff14" + "\uff11" * 15 + " rest")
    assert cut.startswith("x" * 192) and "\uff14" not in cut and "\uff11" not in cut
    # a cut inside what is not yet a card: none of its digits shown either
    assert printable("x" * 192 + "\uff14\uff11\u00a0" * 6) == "x" * 192 + "…"
    assert printable("x" * 192 + "4111%2D" * 6) == "x" * 192 + "…"
    # a card followed by hex letters, cut after 32 of them, would read as a UUID (exempt)
    credential = "Authorization: Bearer " + "A" * 4100 + " " + "x" * 141
    cut_as_an_id = printable(credential + "4111111111111111" + "abcdef" * 10)
    assert "4111" not in cut_as_an_id and "1111" not in cut_as_an_id
    # nor when its separators are escapes, JSON's or HTML's (a long credential masked to
    # *** brought the cut card into view)
    escaped = json.dumps(
        {"Authorization": "Negotiate " + "Y" * 4222, "pan": "\u00a0".join(["4111"] + ["1111"] * 3)}
    )
    assert "1111" not in printable(escaped) and "4111" not in printable(escaped)
    cut_in_html = printable("x" * 190 + "&nbsp;".join(["4111", "1111", "1111", "1111"]))
    assert not any(char.isdigit() for char in cut_in_html)  # masked, then cut: no digit
    # a list of numbers cut keeps its others: only the last 19 digits' groups go
    listed = printable("Failed rows: " + "10 " * 100)  # no 13 to 19 of its digits a card
    # 62 numbers and a digit fit in 200 characters: the last ten groups (19 digits) go
    assert listed == "Failed rows: " + " ".join(["10"] * 53) + "…"
    # a long credential masked brings what follows it into the quote: a number the part
    # redacted ends in is left out
    after_a_long_secret = printable(
        "Authorization: Basic " + "A" * 4_260 + " 4111 1111 1111 1111 and more"
    )
    assert after_a_long_secret.startswith("Authorization: Basic ***")
    assert "4111" not in after_a_long_secret and "11" not in after_a_long_secret
