"""The action key: one key per user action, until its outcome is known."""

import pytest

from app.api.action import ActionKey, OutcomeUnknown
from app.api.errors import ApiConnectionError, BadRequest, ServerError, Unauthorized


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
