"""The game's words for people, translated: die kinds, faces, colours, why a trick was won.

Used by the terminal table and by ``minodice replay`` (in English), so that a trick is
explained the same way everywhere.

Names that come from the dice-set data are listed here with ``N_`` so that the
catalogues carry them; :class:`Words` turns data and engine results into translated text.
"""

from __future__ import annotations

import gettext

from minodice.core.dice import SYMBOL_BASE, DiceSet
from minodice.core.rules import Reason, TrickResult


def N_(message: str) -> str:  # noqa: N802 - the gettext convention for "mark only"
    """Mark ``message`` for translation without translating it here."""
    return message


# Die kinds and symbols of both editions, and the flag.
KIND_WORDS = (
    N_("minotaur"), N_("griffin"), N_("mermaid"), N_("red"), N_("yellow"), N_("purple"),
    N_("gray"), N_("skull-king"), N_("pirate"), N_("black"), N_("blue"), N_("flag"),
)
EDITION_TITLES = {"mino": N_("Mino Dice"), "skull-king": N_("Skull King – The Dice Game")}


class Words:
    """Translated game words for one language."""

    def __init__(self, tr: gettext.NullTranslations, dice_set: DiceSet) -> None:
        self.tr = tr
        self._ = tr.gettext
        self.ngettext = tr.ngettext
        self.dice_set = dice_set

    def kind(self, name: str) -> str:
        return self._(name)

    def face(self, name: str) -> str:
        """A face as shown: numbers as they are, flag and symbols translated."""
        return name if name.isdigit() else self._(name)

    def face_code(self, code: int) -> str:
        return self.face(self.dice_set.face_of_code(code).name)

    def title(self) -> str:
        return self._(EDITION_TITLES.get(self.dice_set.name, self.dice_set.title))

    def reason(self, result: TrickResult, winning_code: int) -> str:
        """Why the trick was won, e.g. "mermaid beats minotaur", "7 is highest"."""
        _ = self._
        symbols = self.dice_set.symbols
        if result.reason is Reason.ALL_THREE:
            return _("all three symbols: {mermaid} wins").format(mermaid=_(symbols[2]))
        if result.reason is Reason.BEATS:
            return _("{winner} beats {loser}").format(
                winner=_(symbols[winning_code - SYMBOL_BASE]), loser=_(symbols[result.beaten_role]))
        if result.reason is Reason.ONLY_SYMBOL:
            return _("{symbol} beats numbers and flags").format(
                symbol=_(symbols[winning_code - SYMBOL_BASE]))
        if result.reason is Reason.SAME_SYMBOL:
            return _("several {symbol}s: the last rolled wins").format(
                symbol=_(symbols[winning_code - SYMBOL_BASE]))
        if result.reason is Reason.HIGHEST:
            return _("{number} is highest").format(number=winning_code)
        if result.reason is Reason.TIE:
            return _("{number} is highest; the later roll wins a tie").format(number=winning_code)
        return _("only flags: the leader wins")
