"""The rules in brief, as the rules screen shows them (translated paragraph by paragraph).

Placeholders name the edition's symbols, so that one text serves both editions.
"""

from __future__ import annotations

from minodice.core.rules import DEFAULT_RULE_OPTIONS, RuleOptions, SpecialLead, StartRule
from minodice.i18n.words import N_, Words

RULES = (
    N_("Goal: predict exactly how many tricks you will win. After the last round the "
       "highest total wins; a tie shares the victory."),
    N_("Rounds: 8 rounds with 3 or 4 players, 7 with 5, 6 with 6. In round n every player "
       "draws n dice from the bag and keeps them behind their screen."),
    N_("Bidding: everyone bids at the same time, in secret, how many tricks they will win "
       "(0 to n). The bids are revealed together."),
    N_("Tricks: the start player leads; then, clockwise, everyone chooses one of their dice "
       "and rolls it in the open. The winner of a trick leads the next one."),
    N_("Following: the first number die rolled sets the colour. If you hold a die of that "
       "colour you must roll one of them or a special die ({minotaur}, {griffin}, "
       "{mermaid}). Special dice may always be rolled."),
    N_("Winning a trick: symbols beat numbers and flags. {minotaur} beats {griffin}, "
       "{griffin} beats {mermaid}, {mermaid} beats {minotaur}; with all three, {mermaid} "
       "wins. Among equal symbols the last rolled wins."),
    N_("Without symbols the highest number wins (a tie goes to the later roll). A flag is "
       "0; if only flags show, the leader wins."),
    N_("Scoring a bid of 1 or more: exactly right, 20 points per trick; otherwise minus 10 "
       "per trick too many or too few."),
    N_("Scoring a bid of 0: no trick won, 10 points times the round number; otherwise minus "
       "10 times the round number."),
    N_("Bonus, only with an exact bid: a trick won with a {minotaur} symbol scores 30 per "
       "{griffin} symbol in it; a trick won with a {mermaid} symbol scores 50 if the "
       "{minotaur} symbol is in it. A special die showing a flag gives no bonus."),
    N_("Simplified variant: a missed bid scores 0, and there are no bonuses."),
)


def rules_paragraphs(words: Words) -> list[str]:
    """The rules translated, with the edition's symbol names filled in."""
    # Capitalised: the symbols are the game's characters, and often begin a sentence.
    names = [words.kind(s)[:1].upper() + words.kind(s)[1:] for s in words.dice_set.symbols]
    return [words._(p).format(minotaur=names[0], griffin=names[1], mermaid=names[2])
            for p in RULES]


def house_rules_paragraph(words: Words, options: RuleOptions) -> str | None:
    """RULES.md's open points (R5, R9) as this table plays them, in the words the web
    page's create form uses; ``None`` at a table that plays the defaults, whose rules the
    paragraphs above already tell."""
    if options == DEFAULT_RULE_OPTIONS:
        return None
    _ = words._
    start = _("Always the same") if options.start is StartRule.FIXED else _("Clockwise")
    lead = (_("No colour") if options.special_lead is SpecialLead.NO_COLOUR
            else _("The first number die's"))
    return (f"{_('House rules')}: {_('Start player of later rounds')}: {start}; "
            f"{_('Colour when a special die leads')}: {lead}.")
