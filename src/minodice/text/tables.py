"""Plain-text reports for tournaments and bid advice."""

from __future__ import annotations

from collections.abc import Sequence

from minodice.bots.advisor import Advice
from minodice.play.tournament import BotStats


def render_tournament(stats: Sequence[BotStats], games: int, players: int) -> str:
    """One line per bot: games, mean score with its 95% interval, wins, bids, times."""
    width = max(8, *(len(s.name) for s in stats))
    how = ("seats rotated, duplicate deals" if games >= players
           else f"fewer games than the {players} seat rotations of a deal")
    lines = [
        f"{games} game{'s' if games != 1 else ''}, {players} players ({how})",
        f"{'bot':<{width}}  {'games':>6}  {'mean score':>10}  {'95% interval':>18}  "
        f"{'win share':>9}  {'bids made':>9}  {'ms median':>9}  {'ms p99':>8}",
    ]
    for s in stats:
        interval = f"[{s.ci95[0]:.1f}, {s.ci95[1]:.1f}]"
        lines.append(
            f"{s.name:<{width}}  {s.games:>6}  {s.mean_score:>10.1f}  {interval:>18}  "
            f"{s.win_share:>9.3f}  {s.bid_success:>9.1%}  {s.decision_ms_median:>9.2f}  "
            f"{s.decision_ms_p99:>8.2f}")
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
    lines.append(f"({advice.samples} simulated rounds per bid; the simple sum of the dice's "
                 f"chances says {advice.heuristic_tricks:.2f} tricks)")
    return "\n".join(lines)
