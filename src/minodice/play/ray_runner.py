"""Tournaments on a Ray cluster: the same games as on this machine, spread wider.

:func:`run_games_on_ray` plays the games of a :class:`~minodice.play.tournament.TournamentSpec`
as Ray tasks, in the same batches as the local worker processes, and returns them in
game order. Every game follows from the spec and its index alone (its deal's
generators, its bots' generators), so the results are the same as a local run's with
the same seed, wherever each game was played.

The address is Ray's: ``auto`` for the cluster this machine belongs to (``ray start``),
``HOST:PORT`` or ``ray://HOST:PORT`` for another, or ``local`` to start a Ray instance
in this process with ``workers`` CPUs (and stop it afterwards). A process that has
already called ``ray.init`` keeps its own connection. Every node needs minodice (and
any outside bot's file) installed: Ray ships the tasks, not the package.

Ray comes with the ``research`` extra (``pip install 'minodice[research]'``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from minodice.bots.protocol import BotError
from minodice.play.match import GameResult

__all__ = ["run_games_on_ray"]


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BotError("--ray needs Ray: pip install 'minodice[research]'") from None
    return ray


def run_games_on_ray(
    spec: Any,
    address: str,
    workers: int,
    batches: Sequence[Sequence[int]],
    play_batch: Callable[[Any, Sequence[int]], list[GameResult]],
    on_progress: Callable[[int], None] | None = None,
    on_batch: Callable[[list[GameResult]], list[GameResult]] | None = None,
) -> list[GameResult]:
    """Play ``batches`` of game indices of ``spec`` as Ray tasks; results in game order.
    ``on_batch`` sees each batch as it is back (and gives back what to keep of it).

    ``play_batch(spec, indices)`` plays one batch (the tournament's own function, passed in
    so that this module does not import the tournament that imports it).
    """
    ray = _import_ray()
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                   "logging_level": logging.ERROR}
        try:
            if address == "local":  # on the loopback interface: nothing leaves this machine
                ray.init(num_cpus=workers, _node_ip_address="127.0.0.1", **options)
            else:
                ray.init(address=address, **options)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise BotError(f"cannot reach a Ray cluster at {address!r}: {first}") from None
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(play_batch)
        pending = [task.remote(spec, list(batch)) for batch in batches]
        results: list[GameResult] = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                for batch_results in ray.get(done):
                    results.extend(on_batch(batch_results) if on_batch else batch_results)
            except ray.exceptions.RayTaskError as exc:
                for ref in pending:
                    ray.cancel(ref, force=True)
                cause = getattr(exc, "cause", None)
                if isinstance(cause, BotError):  # with the game it stopped, if kept
                    raise cause from None
                raise BotError(f"a Ray task failed: {str(exc).strip().splitlines()[0]}"
                               ) from None
            if on_progress:
                on_progress(len(results))
    finally:
        if started:
            ray.shutdown()
    results.sort(key=lambda r: r.index)
    return results
