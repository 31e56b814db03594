"""Rich text for the table's panels: your dice, the trick, the players, summaries.

Every panel is drawn from a :class:`~minodice.core.view.SeatView` (what the person at the
screen may know, or a spectator's view with no hand), never from the engine state.

Every die is written with its name as well as its colour, so nothing depends on colour
alone (``NO_COLOR`` and colourless terminals lose nothing).

Names are what people typed: every cell and line holding one is a :class:`~rich.text.Text`
(never markup), made from the names the app has already made printable, so that
``[/]`` or ``Bob [guest]`` shows as typed and an escape sequence as an escape.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.box import SIMPLE_HEAD
from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from minodice.bots.advisor import Advice, PlayAdvice
from minodice.core.actions import Roll
from minodice.core.dice import DiceSet, DieKind
from minodice.core.view import SeatView
from minodice.i18n.words import N_, Words

SYMBOL_MARK = "★"  # a special die showing its symbol
FLAG_MARK = "⚑"    # a flag, in the compact row of a die's six faces
START_MARK = "◆"   # the round's start player

#: Every column header of the table's panels and pages: no player may be called so (the
#: default name is checked against them in every language).
COLUMN_HEADERS = (N_("Player"), N_("Bid"), N_("Won"), N_("Total"), N_("Points"), N_("Bonus"),
                  N_("Round"), N_("Place"), N_("Makes it"), N_("Expected score"), N_("Trick"),
                  N_("Die"), N_("Takes the trick"), N_("Winner"), N_("Dice"))

COLOUR_STYLES = {
    "brown": "bold dark_orange3", "green": "bold green3", "blue": "bold dodger_blue1",
    "red": "bold red1", "yellow": "bold yellow1", "purple": "bold medium_purple1",
    "gray": "bold grey70", "black": "bold white on grey23",
}


def kind_style(kind: DieKind) -> str:
    return COLOUR_STYLES.get(kind.colour, "bold")


def die_text(words: Words, kind: DieKind, face: str | None = None) -> Text:
    """A die (and the face it shows) as coloured text: ``red→6``."""
    text = Text(words.kind(kind.name), style=kind_style(kind))
    if face is not None:
        text.append("→")
        # A special die showing its symbol: a star, so the line stays short in any language.
        shown = SYMBOL_MARK if kind.special and face == kind.name else words.face(face)
        text.append(shown, style="bold")
    return text


def dice_panel(words: Words, view: SeatView, cursor: int, show_faces: bool,
               choosing: bool) -> Text:
    """The dice behind the screen of ``view``'s seat, numbered; illegal ones marked with the
    reason. A spectator's view (no seat) shows that the dice are hidden."""
    _ = words._
    out = Text()
    if view.seat is None:
        out.append(_("Your dice are hidden."), style="italic")
        out.append("\n")
        out.append(_("The next player's screen opens when they are ready."), style="dim")
        return out
    hand = view.hand
    out.append(_("Your dice") + "\n", style="underline")
    legal = {a.kind.name for a in view.legal_actions if isinstance(a, Roll)}
    kinds = [k for k in view.dice_set.kinds if hand.counts[k.index]]
    if not kinds:
        out.append(_("(none left this round)"), style="dim")
        return out
    blocked = False
    for i, kind in enumerate(kinds):
        allowed = not choosing or kind.name in legal
        pointer = "▶" if choosing and i == cursor else " "
        out.append(f"{pointer}{i + 1} ", style="bold" if allowed else "dim")
        count = hand.counts[kind.index]
        name = words.kind(kind.name) + (f" ×{count}" if count > 1 else "")
        out.append(f"{name:<14}", style=kind_style(kind) if allowed else "dim strike")
        if not allowed:
            out.append(" ✗", style="bold")
            blocked = True
        out.append("\n")
        if show_faces:  # compact, on a line of its own, so it never wraps into the next die
            faces = " ".join(FLAG_MARK if f.is_flag else SYMBOL_MARK if f.is_symbol else f.name
                             for f in kind.faces)
            out.append(f"     {faces}\n", style="dim")
    if show_faces:
        out.append(_("{flag} flag · {symbol} symbol").format(flag=FLAG_MARK, symbol=SYMBOL_MARK)
                   + "\n", style="dim")
    if blocked and view.follow is not None:
        colour = view.dice_set.kind(view.follow)
        out.append(_("✗ follow {colour} (R9)").format(colour=words.kind(colour.colour)),
                   style="italic")
    return out


Shown = tuple[int, int, int]  # a die on screen: (seat, kind index, face code)

ELLIPSIS = "…"


def _cut(text: str, width: int) -> str:
    """The longest start of ``text`` that takes at most ``width`` terminal cells."""
    out = ""
    for char in text:
        if cell_len(out + char) > width:
            break
        out += char
    return out


def _tail(text: str, width: int) -> str:
    """The longest end of ``text`` that takes at most ``width`` terminal cells."""
    return _cut(text[::-1], width)[::-1]


def shortened(name: str, width: int) -> str:
    """``name`` in at most ``width`` cells: whole if it fits, else cut, ending in "…"."""
    if cell_len(name) <= width:
        return name
    if width <= 1:
        return _cut(ELLIPSIS, width)
    return _cut(name, width - 1).rstrip() + ELLIPSIS


def fit_names(names: Sequence[str], width: int) -> list[str]:
    """Every name in at most ``width`` cells, and two different names never alike: a name
    too long is cut at its end ("Anastasi…"); names that would then look the same keep
    their ends instead ("Anast…ria", "Anast…rie"), as far as the width allows."""
    shown = [shortened(name, width) for name in names]
    for text in set(shown):
        group = [i for i, s in enumerate(shown) if s == text]
        if len({names[i] for i in group}) < 2:
            continue
        for tail in range(1, width - 1):
            tried = [_cut(names[i], width - 1 - tail).rstrip() + ELLIPSIS
                     + _tail(names[i], tail).lstrip()
                     if cell_len(names[i]) > width else names[i] for i in group]
            if len(set(tried)) == len({names[i] for i in group}):
                for i, t in zip(group, tried, strict=True):
                    shown[i] = t
                break
    return shown


def abbreviated(word: str, width: int) -> str:
    """A column heading in ``width`` cells: whole if it fits, else cut with a full stop
    ("Apuesta" → "Apu."), as the catalogues abbreviate ("Ans.", "Gew.")."""
    if cell_len(word) <= width:
        return word
    if width < 3:
        return _cut(word, width)
    return _cut(word, width - 1).rstrip(" .") + "."


def trick_panel(words: Words, ds: DiceSet, rolls: Sequence[Shown], names: Sequence[str],
                rolling: tuple[int, int, str] | None, winner: int | None = None,
                previous: tuple[Sequence[Shown], int] | None = None,
                rows: int = 0, width: int = 0) -> Text:
    """The dice rolled so far in this trick, the colour to follow, and a roll in flight;
    ``winner`` once the trick is won. Below, the ``previous`` trick of the round (its dice,
    the winning one bold and marked ◀), when it fits in ``rows`` lines (0: always).

    With ``width``, every line fits it (a long name is shortened, never a die), so that
    the count of lines is the count of rows and nothing is pushed out of the panel."""
    _ = words._
    out = Text()
    out.append(_("Trick") + "\n", style="underline")
    follow = next((ds.kinds[k] for _s, k, _c in rolls if not ds.kinds[k].special), None)
    if follow is not None:
        out.append(_("Follow: "))
        out.append(words.kind(follow.colour), style=kind_style(follow))
    else:
        out.append(_("No colour yet"), style="dim")
    out.append("\n")
    name_width = min(10, max(cell_len(n) for n in names))
    for seat, kind, code in rolls:
        out.append_text(_roll_line(words, ds.kinds[kind], ds.face_of_code(code).name,
                                   names, seat, name_width, width))
    if rolling is not None:
        seat, kind, face = rolling
        die = ds.kinds[kind]
        shown = SYMBOL_MARK if die.special and face == die.name else words.face(face)
        line = die_text(words, die)
        line.append(f" … {shown}", style="blink")
        out.append_text(_named(names, seat, line, name_width, width))
    if winner is not None:
        out.append_text(_fitted(_("Won by {name}"), names[winner], width, "bold green"))
    if previous is not None:
        dice, taker = previous
        if not rows or len(out.split()) + 2 + len(dice) <= rows:  # a blank, the heading
            out.append("\n")
            out.append(_("Previous trick"), style="dim underline")
            out.append("\n")
            for seat, kind, code in dice:
                out.append_text(_roll_line(words, ds.kinds[kind], ds.face_of_code(code).name,
                                           names, seat, name_width, width, seat == taker))
    out.rstrip()
    return out


def _roll_line(words: Words, kind: DieKind, face: str, names: Sequence[str], seat: int,
               name_width: int, width: int, taker: bool | None = None) -> Text:
    """``name  die→face`` (``seat``'s name); in a finished trick (``taker`` not None) dim,
    but the winning die bold and marked."""
    die = die_text(words, kind, face)
    if taker:
        die.append(" ◀", style="bold")
    line = _named(names, seat, die, name_width, width)
    if taker is not None:
        line.stylize("bold" if taker else "dim")
    return line


def _named(names: Sequence[str], seat: int, what: Text, name_width: int, width: int) -> Text:
    """``seat``'s name in a column of ``name_width``, then ``what``, on one line of at most
    ``width`` columns (0: any): the name gives way, shortened with "…" (never to look like
    another of ``names``), down to nothing."""
    room = name_width if not width else min(name_width, width - 1 - what.cell_len)
    if room <= 0:
        line = what.copy()
    else:
        shown = fit_names(names, room)[seat]
        line = Text(shown + " " * (room - cell_len(shown)) + " ")
        line.append_text(what)
    line.append("\n")
    return line


def _fitted(template: str, name: str, width: int, style: str) -> Text:
    """``template`` with ``name`` filled in, the name shortened until the line fits."""
    text = template.format(name=name)
    while width and len(text) > width and len(name) > 1:
        name = name[:-2] + "…"
        text = template.format(name=name)
    return Text(text + "\n", style=style)


def header(title: str, where: str, start: str, names: Sequence[str], starter: int,
           width: int) -> Text:
    """The top line, ``title`` + ``where`` (round, trick) + ``start`` (its ``{name}`` the
    start player's), in ``width`` cells: a long name is shortened (never to look like
    another), then the title gives way, so that the round and the name stay."""
    shown = title + where
    for with_title, least in ((True, 12), (False, 1)):
        shown = (title if with_title else "") + where
        room = width - cell_len(shown) - cell_len(" · " + start.format(name=""))
        if room >= min(least, max(cell_len(n) for n in names)):
            shown += " · " + start.format(name=fit_names(names, room)[starter])
            break
    text = Text(no_wrap=True, overflow="ellipsis")
    if shown.startswith(title):
        text.append(title, style="bold")
        text.append(shown[len(title):])
    else:
        text.append(shown.removeprefix(" · "))
    return text


def rolled_this_round(words: Words, ds: DiceSet, rolls: Sequence[Shown], width: int) -> Text:
    """How many dice of each kind were rolled this round, out of the set's: is the
    minotaur out yet? Special dice first; kinds none of which was rolled are dim."""
    _ = words._
    counts = [0] * len(ds.kinds)
    for _seat, index, _code in rolls:
        counts[index] += 1
    out = Text()
    out.append(_("Rolled this round"), style="underline")
    out.append("\n")
    column = 0
    for kind in sorted(ds.kinds, key=lambda k: not k.special):
        entry = f"{words.kind(kind.name)} {counts[kind.index]}/{kind.count}"
        if column and column + 2 + len(entry) > width:
            out.append("\n")
            column = 0
        elif column:
            out.append("  ")
            column += 2
        out.append(entry, style=kind_style(kind) if counts[kind.index] else "dim")
        column += len(entry)
    return out


def round_tricks_table(words: Words, ds: DiceSet, tricks: Sequence[tuple[Sequence[Shown], int]],
                       names: Sequence[str]) -> Table:
    """The tricks of this round so far: one row each, its winner, and its dice in the
    order rolled, one a line (the winning one bold and marked): any number of players
    fits any width, and the page scrolls."""
    _ = words._
    table = Table(box=SIMPLE_HEAD, expand=False)
    table.add_column(_("Trick"), justify="right", no_wrap=True, min_width=len(_("Trick")))
    table.add_column(_("Winner"), no_wrap=True, max_width=12, overflow="ellipsis")
    table.add_column(_("Dice"), ratio=1)
    winners = fit_names(names, 12)
    for number, (rolls, taker) in enumerate(tricks, start=1):
        width = min(12, max(cell_len(names[seat]) for seat, _k, _c in rolls))
        dice = Text()
        for seat, kind, code in rolls:
            dice.append_text(_roll_line(words, ds.kinds[kind], ds.face_of_code(code).name,
                                        names, seat, width, 0, seat == taker))
        dice.rstrip()
        table.add_row(str(number), Text(winners[taker]), dice, end_section=True)
    return table


def round_starter(view: SeatView, index: int) -> int:
    """The start player of round ``index + 1`` (0-based ``index``), as R5 and the view's
    options say (one seat on per round, or the same seat every round)."""
    return view.starter_of_round(index + 1)


def players_panel(words: Words, view: SeatView, names: Sequence[str], active: int | None,
                  round_index: int | None = None, width: int = 30) -> RenderableType:
    """Bids (once revealed), tricks won and totals — the top of the score pad — in
    ``width`` cells.

    The bid of ``view``'s own seat shows in brackets while the others are still bidding.
    With ``round_index``, the numbers of that (finished) round, shown while its last
    trick and summary are still on screen.

    The names come first: they are shown whole whenever the numbers leave room for them,
    and the headings of the numbers give way (abbreviated, "Apu."); a name still too long
    is shortened, never to look like another.
    """
    _ = words._
    bids: Sequence[int | None]
    if round_index is None:
        bids, all_in = view.bids, view.all_bids_in
        won, totals = view.tricks_won, view.totals
        starter = view.starter
    else:
        past = view.history[round_index]
        bids, all_in = past.bids, True
        won = tuple(past.trick_winners.count(s) for s in range(len(names)))
        totals = past.totals or view.totals
        starter = round_starter(view, round_index)
    markers = ["▶" if seat == active else (START_MARK if seat == starter else " ")
               for seat in range(len(names))]
    # before all are in, only the view's own bid: in brackets
    shown_bids = ["?" if bid is None else str(bid) if all_in else f"({bid})" for bid in bids]
    columns = [shown_bids, [str(w) for w in won], [str(t) for t in totals]]
    headings = [_("Player"), _("Bid"), _("Won"), _("Total")]
    # The numbers' columns are as wide as "(8)", "10" and "-100" at least (they keep their
    # width as the game goes on), and their headings a readable "Ap.", "Ba.", "Tot.".
    numbers = [max(least, *(cell_len(v) for v in values))
               for least, values in zip((3, 3, 4), columns, strict=True)]
    wanted = [max(n, cell_len(h)) for n, h in zip(numbers, headings[1:], strict=True)]
    name_need = 1 + max(cell_len(n) for n in names)
    spare = width - sum(numbers) - 3  # one cell between columns
    name_width = max(2, min(name_need, spare))
    spare -= name_width
    while spare > 0 and any(n < w for n, w in zip(numbers, wanted, strict=True)):
        for i in range(len(numbers)):  # the headings, a cell at a time
            if spare > 0 and numbers[i] < wanted[i]:
                numbers[i] += 1
                spare -= 1
    gap = margin = 0
    if spare >= 2:  # a cell of air inside the panel's border, as below the table
        margin, spare = 1, spare - 2
    if spare >= 3:  # two cells between columns
        gap, spare = 1, spare - 3
    name_width += max(0, spare)
    table = Table(box=None, padding=(0, 0, 0, 1 + gap), pad_edge=False, expand=False,
                  show_edge=False)
    table.add_column(abbreviated(headings[0], name_width), width=name_width, no_wrap=True)
    for heading, cells in zip(headings[1:], numbers, strict=True):
        table.add_column(abbreviated(heading, cells), width=cells, justify="right",
                         no_wrap=True)
    for marker, name, bid, tricks, total in zip(
            markers, fit_names(names, name_width - 1), *columns, strict=True):
        table.add_row(Text(f"{marker}{name}"), bid, tricks, total)
    return Padding(table, (0, margin)) if margin else table


def round_table(words: Words, view: SeatView, names: Sequence[str], index: int) -> Table:
    """One finished round: bid, tricks won, the bid's points and the bonus apart (their
    sum is the round's score: nobody adds the bonus twice), and the total (the page it is
    shown on names the round)."""
    _ = words._
    past = view.history[index]
    table = Table(expand=False, box=SIMPLE_HEAD)
    for title in (_("Player"), _("Bid"), _("Won"), _("Points"), _("Bonus"), _("Total")):
        table.add_column(title, justify="left" if title == _("Player") else "right")
    for seat, name in enumerate(names):
        won = past.trick_winners.count(seat)
        bonus = past.bonus[seat]
        table.add_row(Text(name), str(past.bids[seat]), str(won),
                      f"{past.points[seat] - bonus:+d}", f"{bonus:+d}" if bonus else "",
                      str(past.totals[seat]))
    return table


def score_pad(words: Words, view: SeatView, names: Sequence[str], title: bool = True) -> Table:
    """The score pad: running totals after every finished round."""
    _ = words._
    table = Table(title=_("Score pad") if title else None, expand=False, box=SIMPLE_HEAD)
    table.add_column(_("Round"), justify="right")
    for name in fit_names(names, 10):
        table.add_column(Text(name), justify="right")
    for past in view.history:
        table.add_row(str(past.round_no), *(str(t) for t in past.totals))
    return table


def ranking(words: Words, view: SeatView, names: Sequence[str]) -> Table:
    """Final ranking; players on the same total share a place (and the victory)."""
    _ = words._
    totals = view.totals
    table = Table(title=_("Final ranking"), expand=False, box=SIMPLE_HEAD)
    table.add_column(_("Place"), justify="right")
    table.add_column(_("Player"))
    table.add_column(_("Total"), justify="right")
    order = sorted(range(len(names)), key=lambda s: -totals[s])
    for seat in order:
        place = 1 + sum(1 for t in totals if t > totals[seat])
        table.add_row(str(place), Text(names[seat]), str(totals[seat]))
    return table


def advice_page(words: Words, advice: Advice) -> Group:
    """The bid advisor's answer, translated: every bid's odds and the trick distribution."""
    _ = words._
    table = Table(box=SIMPLE_HEAD, expand=False)
    table.add_column(_("Bid"), justify="right")
    table.add_column(_("Makes it"), justify="right")
    table.add_column(_("Expected score"), justify="right")
    table.add_column("")
    for bid in sorted(advice.expected_score):
        table.add_row(str(bid), f"{advice.make_chance[bid]:.0%}",
                      f"{advice.expected_score[bid]:+.1f}", "◀" if bid == advice.best_bid else "")
    dist = Text(_("Tricks won when playing for {bid}:").format(bid=advice.best_bid) + "\n")
    for tricks, p in enumerate(advice.tricks_for_best):
        if p > 0:
            dist.append(f"{tricks:>2} {p:>4.0%} " + "█" * round(p * 30) + "\n")
    return Group(Text(_("Best bid: {bid}").format(bid=advice.best_bid), style="bold"), table,
                 dist, Text(advice_basis(words, advice), style="dim"))


def advice_basis(words: Words, advice: Advice) -> str:
    """What the bid advisor's figures rest on, exactly (every bid had a first look; the
    most promising, the best among them, a second)."""
    _ = words._
    first, most = advice.first_look, advice.samples_per_bid[advice.best_bid]
    if first == most:
        return _("From {n} simulated rounds for every bid, everyone playing for their "
                 "bid.").format(n=first)
    return _("From {first} simulated rounds for every bid and {most} in all for each of the "
             "most promising ({bids}), everyone playing for their bid.").format(
                 first=first, most=most, bids=", ".join(str(b) for b in advice.contenders))


def play_advice_page(words: Words, ds: DiceSet, advice: PlayAdvice) -> Group:
    """The advisor during play: each die you may roll, its chance to take this trick and
    your expected score for the round after rolling it."""
    _ = words._
    table = Table(box=SIMPLE_HEAD, expand=False)
    table.add_column(_("Die"))
    table.add_column(_("Takes the trick"), justify="right")
    table.add_column(_("Expected score"), justify="right")
    table.add_column("")
    for die in advice.dice:
        table.add_row(die_text(words, ds.kind(die)), f"{advice.take_chance[die]:.0%}",
                      f"{advice.expected_score[die]:+.1f}", "◀" if die == advice.best else "")
    best = Text(_("Best die: {die}").format(die=words.kind(advice.best)), style="bold")
    model = Text(_("From {n} simulated rounds, the same for every die: the dice you cannot "
                   "see are dealt at random, as fits everything rolled and bid; then you play "
                   "for the best score and the others for their bids.").format(n=advice.samples),
                 style="dim")
    return Group(best, table, model)
