"""The server builds its messages as the ``TypedDict``s of ``minodice.wire.shapes`` (plain
dicts: no cost) and the protocol is defined by the pydantic models of
``minodice.wire.messages``: here each twin is proved to match its model — the same field
names, every field the model requires required, and the same JSON Schema for every field
— so that the types mypy checks the server against cannot drift from the protocol."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter

from minodice.core.fair import SCHEME_1, SCHEME_2, Fairness, seed_hash
from minodice.server.protocol import fairness_key
from minodice.wire import messages, shapes

TWINS: list[tuple[Any, type[BaseModel]]] = [
    (shapes.PlayerDict, messages.Player),
    (shapes.RollDict, messages.Roll),
    (shapes.WhyDict, messages.Why),
    (shapes.TrickDict, messages.Trick),
    (shapes.PastRoundDict, messages.PastRound),
    (shapes.RevealDict, messages.Reveal),
    (shapes.FairnessKeyDict, messages.FairnessKey),
    (shapes.RuleOptionsDict, messages.RuleOptionsWire),
    (shapes.ViewDict, messages.View),
    (shapes.ViewMessageDict, messages.ViewMessage),
    (shapes.ErrorMessageDict, messages.ErrorMessage),
    (shapes.ChatMessageDict, messages.ChatMessage),
]
#: A twin's name in the schemas is its model's.
RENAMED = {twin.__name__: model.__name__ for twin, model in TWINS}


def _bare(schema: Any) -> Any:
    """A field's schema without what only documents it, references named by the model."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key in ("title", "description", "default"):
                continue
            if key == "$ref":
                name = value.rsplit("/", 1)[1]
                value = f"#/$defs/{RENAMED.get(name, name)}"
            out[key] = _bare(value)
        return out
    if isinstance(schema, list):
        return [_bare(item) for item in schema]
    return schema


def _fields(schema: dict[str, Any]) -> dict[str, Any]:
    return {name: _bare(field) for name, field in schema["properties"].items()}


@pytest.mark.parametrize(("twin", "model"), TWINS, ids=[m.__name__ for _, m in TWINS])
def test_each_typeddict_is_its_models_twin(twin: Any, model: type[BaseModel]) -> None:
    keys = twin.__required_keys__ | twin.__optional_keys__
    assert keys == set(model.model_fields), "the same field names"
    required = {name for name, field in model.model_fields.items() if field.is_required()}
    assert required <= twin.__required_keys__, "what the model requires, the dict has"
    # What the dict may leave out, the model has a default for (absent stays absent).
    assert twin.__optional_keys__ <= set(model.model_fields) - required
    assert _fields(TypeAdapter(twin).json_schema()) == _fields(model.model_json_schema())


def test_a_changed_twin_is_caught() -> None:
    """The check above can fail: a field of another type, or one too many, is seen."""
    from typing_extensions import TypedDict

    class Wrong(TypedDict):
        seat: str
        die: str
        face: int | str

    class More(TypedDict):
        seat: int
        die: str
        face: int | str
        colour: str

    for bad in (Wrong, More):
        with pytest.raises(AssertionError):
            test_each_typeddict_is_its_models_twin(bad, messages.Roll)


@pytest.mark.parametrize("scheme", [SCHEME_1, SCHEME_2])
def test_the_fairness_key_a_view_reveals_is_the_records(scheme: str) -> None:
    """A finished table's views build the key typed (``fairness_key``); it must be what the
    record says (``Fairness.to_json``), field for field, for both schemes."""
    fair = Fairness("c" * 64, bytes(range(32)), ("a", "", "b"), scheme, "abcdefgh23",
                    (seed_hash("a"), seed_hash(""), seed_hash("b")), (1,))
    assert fairness_key(fair) == fair.to_json()
