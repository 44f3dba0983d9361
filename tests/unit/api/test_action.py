"""The action key: one key per user action, until its outcome is known."""

import uuid

import pytest

from app.api import action as action_module
from app.api.action import ActionKey, OutcomeUnknown, new_request_id
from app.api.errors import ApiConnectionError, BadRequest, ServerError, Unauthorized
from app.core.gateway.cards import mask_card_numbers


def test_a_request_id_is_never_one_the_card_masking_would_hide(monkeypatch):
    # 16 digits that pass the Luhn check, then hex letters: masked wherever it is shown
    card_shaped = uuid.UUID("5589168499054230b0d2a119881db3be")
    plain = uuid.UUID("0f2c9a7e5b3d4e1f8a6b2c4d9e0f1a2b")
    made = iter([card_shaped, plain])
    monkeypatch.setattr(action_module.uuid, "uuid4", lambda: next(made))
    assert mask_card_numbers(card_shaped.hex) != card_shaped.hex
    key = new_request_id()
    assert key == plain.hex and mask_card_numbers(key) == key


def test_the_same_request_keeps_its_key_through_every_failure():
    action = ActionKey()
    first = action.key_for({"a": 1})
    for error in (ServerError("x"), Unauthorized("x"), BadRequest("x"), ApiConnectionError("x")):
        action.settle(error)
        assert action.key_for({"a": 1}) == first


def test_a_changed_request_after_a_refusal_gets_a_new_key():
    action = ActionKey()
    first = action.key_for({"a": 1})
    action.settle(BadRequest("refused"))
    assert action.key_for({"a": 2}) != first
    assert action.last_request == {"a": 2}


@pytest.mark.parametrize("error", [ServerError("500"), ApiConnectionError("dropped")])
def test_a_changed_request_while_the_outcome_is_unknown_must_learn_it_first(error):
    action = ActionKey()
    first = action.key_for({"a": 1})
    action.settle(error)
    assert action.outcome_unknown
    with pytest.raises(OutcomeUnknown):
        action.key_for({"a": 2})
    assert action.key == first and action.last_request == {"a": 1}
    action.settle(None)  # the replay of the first one answered
    assert action.done and not action.outcome_unknown


def test_send_settles_the_key_and_replays_an_unknown_outcome_before_a_changed_request():
    from tests.conftest import run

    action = ActionKey()
    sent: list[tuple[dict, str]] = []

    def call(outcome):
        async def send(request, key):
            sent.append((request, key))
            if isinstance(outcome, Exception):
                raise outcome
            return outcome

        return send

    with pytest.raises(ServerError):
        run(action.send({"a": 1}, call(ServerError("500 after acting"))))
    assert action.outcome_unknown and not action.replayed
    # the form changed: the first request goes again, with its key, before anything else
    assert run(action.send({"a": 2}, call("created"))) == "created"
    assert action.replayed and action.done and not action.outcome_unknown
    assert sent == [({"a": 1}, action.key), ({"a": 1}, action.key)]
    # its outcome known, the changed request is another action's: a new key
    run(action.send({"a": 2}, call("updated")))
    assert not action.replayed and sent[-1][0] == {"a": 2} and sent[-1][1] != sent[0][1]
