import keyring
from keyring.backends import fail

from app.api.credentials import Credentials


def test_passwords_go_to_the_keyring(memory_keyring):
    credentials = Credentials()
    assert credentials.persistent
    assert credentials.set("Prod", "anna", "s3cret") is True
    assert memory_keyring.passwords == {("partner-desk:Prod", "anna"): "s3cret"}
    assert Credentials().get("Prod", "anna") == "s3cret"  # a new session finds it
    credentials.delete("Prod", "anna")
    assert Credentials().get("Prod", "anna") is None


def test_without_a_keyring_the_password_lives_for_the_session_only():
    keyring.set_keyring(fail.Keyring())
    credentials = Credentials()
    assert not credentials.persistent
    assert credentials.set("Prod", "anna", "s3cret") is False
    assert credentials.get("Prod", "anna") == "s3cret"
    assert Credentials().get("Prod", "anna") is None
