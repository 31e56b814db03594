"""Plain-text reports of two commands, ``minodice tournament`` and ``minodice advise``.

They live with the command line, above the bot advisor and the tournament runner whose
results they show: the ``text`` package sits below both and imports neither (the layering
contract in ``pyproject.toml``).
"""

from __future__ import annotations

from collections.abc import Sequence

from minodice.bots.advisor import Advice
from minodice.play.tournament import BotStats, PairStats
from minodice.text.safe import printable


def render_tournament(stats: Sequence[BotStats], games: int, players: int,
                      pairs: Sequence[PairStats] = (), seed: int | None = None) -> str:
    """One line per bot: its seats (games it sat in, once per seat: three seats of one bot
    in 8 games are 24), mean score with its 95% interval over deals, win share with its
    standard error, bids made, decision times; then the paired differences."""
    names = {s.name: printable(s.name) for s in stats}
    width = max(8, *(len(n) for n in names.values()))
    deals = max((s.deals for s in stats), default=0)
    head = f"{games} game{'s' if games != 1 else ''}, {players} players"
    if seed is not None:
        head += f", seed {seed} (repeat it with --seed {seed})"
    if games < players:
        how = (f"1 deal, played {games} of the {players} times a deal is played with the "
               "seats rotated: no interval (that needs 2 deals)")
    else:
        how = (f"{deals} deal{'s' if deals != 1 else ''}, each played {players} times with "
               "the seats rotated")
        if games % players:
            # its bots did not sit in every seat: a multiple of the players plays fair deals
            last = games % players
            how += (f" (the last one only {'once' if last == 1 else f'{last} times'}: "
                    f"--games {games - last + players} plays it in every seat)")
        how += ("; the 95% intervals and standard errors (±) are over deals, a deal and "
                "its replays being one sample" if deals >= 2
                else ": no interval (that needs 2 deals)")
    if any(s.games > games for s in stats):  # "easy 24" under "8 games" needs a word
        how += "; seats: a bot's seats in all games (a game counts once for each of its seats)"
    lines = [
        head, how,
        f"{'bot':<{width}}  {'seats':>6}  {'mean score':>10}  {'95% interval':>18}  "
        f"{'win share ± se':>14}  {'bids made':>9}  {'ms median':>9}  {'ms p99':>8}",
    ]
    for s in stats:
        interval = (f"[{s.ci95[0]:.1f}, {s.ci95[1]:.1f}]" if s.ci95 is not None
                    else "no interval")
        wins = (f"{s.win_share:.3f} ± {s.win_share_se:.3f}" if s.win_share_se is not None
                else f"{s.win_share:.3f}")
        lines.append(
            f"{names[s.name]:<{width}}  {s.games:>6}  {s.mean_score:>10.1f}  {interval:>18}  "
            f"{wins:>14}  {s.bid_success:>9.1%}  {s.decision_ms_median:>9.2f}  "
            f"{s.decision_ms_p99:>8.2f}")
    if pairs and deals >= 2:
        lines.append("")
        lines.append("Paired on the same deals: first bot's mean score per game minus the "
                     "second's, 95% interval, and the smallest true difference this run "
                     "detects 4 times in 5")
        labels = [f"{printable(p.a)} − {printable(p.b)}" for p in pairs]
        label_width = max(len(label) for label in labels)
        for label, p in zip(labels, pairs, strict=True):
            interval = (f"[{p.ci95[0]:+.1f}, {p.ci95[1]:+.1f}]" if p.ci95 is not None
                        else "no interval")
            detects = f"detects ±{p.detectable:.1f}" if p.detectable is not None else ""
            lines.append(f"{label:<{label_width}}  {p.mean_difference:>+8.1f}  "
                         f"{interval:>18}  {detects}".rstrip())
    return "\n".join(lines)


def render_advice(advice: Advice) -> str:
    """The advice as a person reads it: best bid, every bid's odds, trick distribution."""
    lines = [
        f"Round {advice.round_no}, {advice.players} players, seat {advice.seat} after the "
        f"start player, hand {advice.hand}",
        f"Best bid: {advice.best_bid}",
        "",
        f"{'bid':>3}  {'makes it':>8}  {'expected score':>14}",
    ]
    for bid in sorted(advice.expected_score):
        mark = "  <- best" if bid == advice.best_bid else ""
        lines.append(f"{bid:>3}  {advice.make_chance[bid]:>8.0%}  "
                     f"{advice.expected_score[bid]:>+14.1f}{mark}")
    lines.append("")
    lines.append(f"Tricks won when playing for {advice.best_bid} "
                 f"(expected {advice.expected_tricks:.2f}):")
    for tricks, p in enumerate(advice.tricks_for_best):
        bar = "#" * round(p * 40)
        lines.append(f"{tricks:>3}  {p:>5.0%}  {bar}")
    lines.append("")
    lines.append(advice_samples_line(advice))
    lines.append(f"The simple sum of the dice's chances says {advice.heuristic_tricks:.2f} "
                 "tricks.")
    return "\n".join(lines)


def advice_samples_line(advice: Advice) -> str:
    """What the figures rest on, exactly: every bid's first look, then the second look of
    the most promising (the best bid is one of them)."""
    first, most = advice.first_look, advice.samples_per_bid[advice.best_bid]
    if first == most:
        return f"Simulated rounds: {first} for every bid."
    contenders = ", ".join(str(b) for b in advice.contenders)
    return (f"Simulated rounds: {first} for every bid, {most} in all for each of the most "
            f"promising ({contenders}).")
