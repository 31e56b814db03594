"""The bot interface, and loading bots by name or from outside code.

A bot sees what a player sees: its seat's :class:`~minodice.core.view.SeatView`, the
legal actions and a random generator of its own — never the full state, so it cannot see
hidden dice (STYLE 10). The same interface serves our bots and outside ones, which
``minodice tournament``, ``simulate`` and ``play`` load as ``path/to/file.py:ClassName`` or
``package.module:ClassName``. Our bots run in our process, for speed; an outside bot is
code from anywhere, so it runs in a process of its own that gets the view and nothing else
(:mod:`minodice.bots.sandbox`). :func:`minodice.bots.loading.make_bot` is the entrance that
chooses between the two; this module stays below the sandbox, which imports it.

>>> load_in_process("random")().name
'random'
"""

from __future__ import annotations

import importlib
import importlib.util
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, get_args, runtime_checkable

from minodice.core.actions import Action
from minodice.core.errors import MinodiceError
from minodice.core.view import SeatView

if TYPE_CHECKING:
    from minodice.core.state import GameState


@runtime_checkable
class Bot(Protocol):
    """Anything with ``act(view, legal, rng) -> action`` is a bot.

    ``act`` is called for every decision of the bot's seat: a bid during bidding (bids
    are secret: the view shows no other bid until all are in) and the choice of a die to
    roll during play. It must return one of ``legal``.
    """

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        ...


class BotError(MinodiceError):
    """A bot that cannot be loaded, or misbehaved in a game; the message names it.

    A game it stopped is kept with it, for the bot's author to see the position:
    ``game_so_far``, the engine's state up to the failing decision (set where the game was
    played), then ``record``, that game's record once a runner has named its players, and
    ``game_index``, which game of a run it was (from 0). An exception's attributes travel
    with it from a worker process to its parent (the record does; a state is not sent).
    """

    game_so_far: GameState | None = None
    record: dict[str, Any] | None = None
    game_index: int | None = None
    #: "; its last output: ..." -- the last lines an outside bot printed, quoted at the
    #: end of the message whatever is said of the game after it
    said: str = ""

    def __str__(self) -> str:
        return super().__str__() + self.said

    def without_output(self) -> str:
        """The message without what the bot printed: for a table with people at it, to
        whom a bot's own output (its hand, say) is another player's secret."""
        return super().__str__()

    def in_game(self, index: int, seed: int | None = None) -> BotError:
        """The same error, said to have happened in game ``index`` (from 0) of a run (of
        ``seed``: with --games and --seed it plays again)."""
        run = "" if seed is None else f" (seed {seed})"
        other = BotError(f"{super().__str__()}, in game {index + 1}{run}")
        other.said = self.said
        other.game_so_far = self.game_so_far
        other.game_index = index
        return other


BotFactory = Callable[[], Bot]


def builtin_factories() -> dict[str, BotFactory]:
    """Our bots by level name (imported only when asked for: the search bot is large)."""
    from minodice.bots.expert import ExpertBot
    from minodice.bots.heuristic import EasyBot, MediumBot
    from minodice.bots.random_bot import RandomBot
    from minodice.bots.search import HardBot

    return {"random": RandomBot, "easy": EasyBot, "medium": MediumBot, "hard": HardBot,
            "expert": ExpertBot}


#: Our bots' levels, weakest first: the one statement of them, which the server's request
#: models (as a type), the command line's help and the page (``/api/meta``) read.
BotLevel = Literal["random", "easy", "medium", "hard", "expert"]
BUILTIN_BOTS: Final[tuple[BotLevel, ...]] = get_args(BotLevel)


def check_spec(spec: str) -> None:
    """:class:`BotError` unless ``spec`` has the form of an outside bot, naming the forms."""
    if ":" not in spec:
        raise BotError(
            f"unknown bot {spec!r}: use one of {', '.join(BUILTIN_BOTS)}, "
            "path/to/file.py:ClassName or package.module:ClassName")
    where, _, class_name = spec.rpartition(":")
    if not where or not class_name:
        raise BotError(f"bot {spec!r}: expected path/to/file.py:ClassName")


def not_an_action(who: str, shown: str, type_name: str, legal: Sequence[object]) -> str:
    """What a bot that returned something other than a Bid or Roll is told: its answer
    with its type (a string ``'bid 0'`` read as an action that "is not legal here", which
    it seemed to be), and what act returns."""
    return (f"{who} returned the {type_name} {shown}, not an action: act(view, legal, rng) "
            "returns one of the Bid or Roll objects in legal (here: "
            f"{', '.join(str(a) for a in legal)})")


def located_spec(spec: str) -> str:
    """``spec`` with its ``file.py`` named by its whole path: a saved game names its bots,
    and is continued from any folder (``mybot.py:Bot`` was looked for in the folder the
    game was continued from). Other names are returned as they are."""
    where, colon, class_name = spec.strip().rpartition(":")
    if colon and where.endswith(".py"):
        return f"{Path(where).resolve()}:{class_name}"
    return spec


def load_in_process(spec: str) -> BotFactory:
    """Import the bot ``spec`` into *this* process: only the bot's own process (the
    sandbox's child) does this for an outside bot."""
    spec = spec.strip()
    builtin = builtin_factories()
    if spec in builtin:
        return builtin[spec]
    check_spec(spec)
    where, _, class_name = spec.rpartition(":")
    try:
        if where.endswith(".py"):
            path = Path(where)
            if not path.is_file():
                raise BotError(f"bot {spec!r}: no file {where}")
            module_name = f"minodice_plugin_{abs(hash(str(path.resolve())))}"
            if module_name in sys.modules:  # loaded before: do not run the file again
                module = sys.modules[module_name]
                return _factory(spec, where, class_name, module)
            module_spec = importlib.util.spec_from_file_location(module_name, path)
            if module_spec is None or module_spec.loader is None:
                raise BotError(f"bot {spec!r}: cannot load {where}")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[module_name] = module
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except BotError:
        raise
    except Exception as exc:
        raise BotError(f"bot {spec!r}: importing {where} failed: "
                       f"{type(exc).__name__}: {exc}") from None
    return _factory(spec, where, class_name, module)


def _factory(spec: str, where: str, class_name: str, module: object) -> BotFactory:
    factory = getattr(module, class_name, None)
    if factory is None:
        raise BotError(f"bot {spec!r}: {where} has no {class_name}")
    if not callable(factory):
        raise BotError(f"bot {spec!r}: {class_name} is not a class")
    return factory  # type: ignore[no-any-return]
