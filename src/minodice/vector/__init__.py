"""A batched engine: N games of Mino Dice stepped in lockstep with NumPy arrays.

For training and fast rollouts; see :class:`~minodice.vector.engine.VectorGame`. It needs
NumPy (the ``research`` extra). The rules are the engine's (:mod:`minodice.core`): this
is their one restatement, kept exact by a differential test that plays the same deals,
bids, dice and rolls through both engines and compares every round's score
(``tests/research/test_vector.py``).
"""

from minodice.vector.engine import VectorGame

__all__ = ["VectorGame"]
