"""Bots by name: ours in this process, an outside one in a process of its own.

This is the one entrance for loading a bot (``minodice tournament``, ``simulate``,
``play``, the server). It sits *above* both :mod:`minodice.bots.protocol` (the interface
and the in-process loader) and :mod:`minodice.bots.sandbox` (which runs outside bots in a
child process), so that neither of those needs the other's caller: the sandbox's child
loads a bot with :func:`~minodice.bots.protocol.load_in_process`, and nothing below this
module imports the sandbox.

>>> bot = make_bot("random")
>>> bot.name
'random'
"""

from __future__ import annotations

from minodice.bots.protocol import Bot, BotError, BotFactory, builtin_factories, check_spec


def load_bot_factory(spec: str) -> BotFactory:
    """A factory for the bot ``spec``: a built-in name, ``file.py:Class`` or ``module:Class``.

    An outside bot's code is loaded in a process of its own, never in ours: the factory
    makes :class:`~minodice.bots.sandbox.SandboxedBot` stand-ins. :class:`BotError` naming
    the bot if its code cannot be loaded.
    """
    spec = spec.strip()
    builtin = builtin_factories()
    if spec in builtin:
        return builtin[spec]
    check_spec(spec)
    # Imported here, as before: a process that only ever runs our bots (the server's
    # workers) never starts the sandbox's machinery.
    from minodice.bots.sandbox import sandboxed_factory

    return sandboxed_factory(spec)


def make_bot(spec: str) -> Bot:
    """A new bot for one game; raises :class:`BotError` naming ``spec`` on any problem."""
    factory = load_bot_factory(spec)
    try:
        bot = factory()
    except BotError:
        raise
    except Exception as exc:
        raise BotError(f"bot {spec!r}: creating it failed: {type(exc).__name__}: {exc}") from None
    if not callable(getattr(bot, "act", None)):
        raise BotError(f"bot {spec!r}: it has no act(view, legal, rng) method")
    return bot
