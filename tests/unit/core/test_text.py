from app.core.text import printable


def test_server_text_loses_its_control_characters_and_its_length():
    hostile = "Unknown bank\x1b]0;pwned\x07\nInjected line: all good\r"
    assert printable(hostile) == "Unknown bank?]0;pwned??Injected line: all good?"
    assert printable("x" * 300) == "x" * 200 + "…"
    assert printable("Eglė Ž") == "Eglė Ž"
