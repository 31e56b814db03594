"""After a game and away from it: the replay page, the game analysis, handing a seat over.

Kept apart from :mod:`minodice.server.app` (which only calls :func:`add_routes`) because
none of it plays a game: the replay viewer reads a finished table's record (the page
replays it by the rules itself, ``static/replay.js``); the analysis
(:mod:`minodice.bots.analysis`, ``minodice analyse``) runs on workers of its own, never the
tables' bots nor the advisor's, one round per job so that the page can show progress; and a
person may hand their seat to the stand-in bot at once instead of after the grace period.

Hidden information: a table's record and its analysis are only ever given for a finished
game, where every hand is public anyway. A record someone sends (``POST /api/analyses``, the
replay viewer's file) is theirs already: its analysis tells nothing the record does not hold,
and it is kept only in this process's memory, so that nobody's uploads fill the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import Field
from sqlalchemy.exc import SQLAlchemyError

from minodice.bots.analysis import Analysis, Decision, analyse_game, summarize
from minodice.core.errors import InvalidRecordError
from minodice.core.record import export_record, parse_record
from minodice.server.botpool import BotPool, PoolBusyError
from minodice.server.connections import client_address
from minodice.server.lobby import ApiError, Lobby
from minodice.server.store import Store, StoreError
from minodice.server.web import PAGE_HEADERS
from minodice.wire.http import Answer, error_answers
from minodice.wire.http import Request as RequestBody

log = logging.getLogger("minodice.server")

#: Sampled worlds per choice on the web: about a tenth of the command line's most, so a
#: whole 4-player game is analysed in well under a minute on one worker. The figures are
#: noisier (``minodice analyse RECORD`` gives the full measure), but its mistakes are not
#: luck: each is weighed again on fresh worlds and must be significant (:mod:`minodice.
#: bots.analysis`; ``benchmarks/analysis.py``).
WEB_ANALYSIS_SAMPLES = 60
#: Finished analyses kept in memory too (all of them are kept in the store, where a
#: restarted server finds them: :meth:`Analyses.recall`).
ANALYSES_KEPT = 200
#: Seconds one round's analysis may take on its worker (a 6-player game's last round,
#: 54 decisions, on a busy machine) before it counts as hung.
ANALYSIS_TIMEOUT = 600.0
#: Analyses running at once; more are refused as busy rather than queued for long.
ANALYSES_RUNNING = 2
#: Bytes of a record sent for analysis (``POST /api/analyses``; every other request body is
#: at most ``MAX_MESSAGE``): a 6-player game with 24-letter names is about 30 KB.
MAX_UPLOADED_RECORD = 64 * 1024
#: Where an uploaded record's analysis is asked for and followed.
UPLOADS = "/api/analyses"


def analyse_round(record_text: str, round_no: int, seed: int, samples: int | None
                  ) -> list[Decision]:
    """Runs in a worker: the decisions of one round of a record (each from its seat's
    view), for the analysis's progress to move a round at a time."""
    loaded = parse_record(record_text)
    return analyse_game(loaded.state, loaded.players, seed, samples,
                        only=lambda r, _t, _i, _s: r == round_no).decisions


def decisions_per_round(record: dict[str, Any]) -> list[int]:
    """How many decisions each bid round of a record has (bids, then every roll, forced
    or not), as :func:`~minodice.bots.analysis.analyse_game` counts its progress."""
    out = []
    for round_ in record.get("rounds", []):
        if round_.get("bids") is None:
            break
        out.append(len(round_["bids"]) + sum(len(t) for t in round_.get("tricks", [])))
    return out


@dataclass
class AnalysisJob:
    """One table's analysis: its progress, then its result (the ``--json`` answer)."""

    total: int
    done: int = 0
    status: Literal["running", "done", "failed"] = "running"
    result: dict[str, object] | None = None
    message: str | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)
    owner: str | None = field(default=None, repr=False)  # who sent it (a record's upload)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"status": self.status, "done": self.done, "total": self.total}
        if self.result is not None:
            out["analysis"] = self.result
        if self.message is not None:
            out["message"] = self.message
        return out


class Analyses:
    """The analyses asked for, by table, computed once on ``pool`` and kept: in memory
    (the newest :data:`ANALYSES_KEPT`) and in ``store`` (every one, for a restarted server
    or another process: a game's analysis costs minutes of a worker); a failed one is
    tried again when asked again."""

    def __init__(self, pool: BotPool, samples: int | None = WEB_ANALYSIS_SAMPLES,
                 seed: int = 0, running: int = ANALYSES_RUNNING,
                 store: Store | None = None) -> None:
        self.pool = pool
        self.samples = samples
        self.running = running
        self.seed = seed
        self.store = store
        self.jobs: OrderedDict[str, AnalysisJob] = OrderedDict()

    def get(self, table_id: str) -> AnalysisJob | None:
        return self.jobs.get(table_id)

    async def recall(self, table_id: str, record: dict[str, Any]) -> AnalysisJob | None:
        """The job for ``table_id`` in memory, else its analysis from the store (computed
        with this server's seed and samples) as a finished job, else ``None``."""
        job = self.jobs.get(table_id)
        if job is not None or self.store is None:
            return job
        try:
            kept = await asyncio.to_thread(self.store.analysis, table_id, self.seed,
                                           self.samples)
        except SQLAlchemyError as exc:  # the store is down: the analysis can still be made
            log.warning("table %s: kept analysis not read: %s", table_id, exc)
            return None
        if kept is None:
            return None
        total = sum(decisions_per_round(record))
        job = AnalysisJob(total=total, done=total, status="done", result=kept)
        self._keep(table_id, job)
        return job

    def _keep(self, table_id: str, job: AnalysisJob) -> None:
        self.jobs[table_id] = job
        self.jobs.move_to_end(table_id)
        while len(self.jobs) > ANALYSES_KEPT:
            oldest = next(iter(self.jobs))
            if self.jobs[oldest].status == "running":
                break
            del self.jobs[oldest]

    def start(self, table_id: str, record: dict[str, Any], stored: bool = True,
              owner: str | None = None) -> AnalysisJob:
        """The job of ``table_id`` (a table's id, or an upload's :func:`upload_key`),
        started unless it runs or is done. ``stored``: its result goes to the store too.

        An upload (``owner``: the address that sent it) is one at a time per address, and
        uploads together leave one of the running analyses to the tables: records that
        differ by a name each cost minutes of a worker, and one address sending them in
        turn kept every table's "Analyse" busy."""
        job = self.jobs.get(table_id)
        if job is not None and job.status != "failed":
            return job
        running = [(key, j) for key, j in self.jobs.items() if j.status == "running"]
        if len(running) >= self.running:
            raise ApiError(503, "busy", "the analysis workers are busy; try again shortly")
        if not stored:
            uploads = [j for key, j in running if key.startswith("upload-")]
            if any(j.owner == owner for j in uploads):
                raise ApiError(429, "rate_limited", "one record's analysis at a time from your "
                               "address: wait for it to finish")
            if len(uploads) >= max(1, self.running - 1):
                raise ApiError(503, "busy", "the analysis workers are busy with records sent "
                               "from files; try again shortly")
        per_round = decisions_per_round(record)
        job = AnalysisJob(total=sum(per_round), owner=owner)
        self._keep(table_id, job)
        job.task = asyncio.ensure_future(self._run(table_id, job, record, per_round, stored))
        return job

    async def _run(self, table_id: str, job: AnalysisJob, record: dict[str, Any],
                   per_round: list[int], stored: bool) -> None:
        text = json.dumps(record)
        decisions: list[Decision] = []
        try:
            for r, count in enumerate(per_round, start=1):
                decisions += await self.pool.run(analyse_round, text, r, self.seed,
                                                 self.samples)
                job.done += count
            players = list(record["players"])
            summaries = summarize(decisions, players, len(per_round))
            job.result = Analysis(players, self.seed, decisions, summaries).to_json()
            job.status = "done"
            if stored:
                await self._save(table_id, job.result)
        except (TimeoutError, BrokenProcessPool, PoolBusyError):
            job.status, job.message = "failed", "the analysis workers are busy; try again"
        except Exception:  # a bug must not stay "running" for ever
            log.exception("analysis failed")
            job.status, job.message = "failed", "the analysis failed"
        finally:
            job.task = None

    async def _save(self, table_id: str, result: dict[str, object]) -> None:
        """Into the store; a store that refuses costs only a later recomputation."""
        if self.store is None:
            return
        try:
            await self.store.save_analysis_async(table_id, self.seed, self.samples, result)
        except StoreError as exc:
            log.warning("table %s: analysis not kept in the store: %s", table_id, exc.why)

    async def close(self) -> None:
        for job in self.jobs.values():
            if job.task is not None:
                job.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await job.task
        self.pool.close()


def upload_key(record: dict[str, Any]) -> str:
    """An uploaded record's analysis id: a hash of what the rules read of it (players, dice
    set, variant, first starter, rounds), so that the same game sent twice, with other
    notes or other spacing, is analysed once; not a table's id (those hold no ``-``)."""
    canonical = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "upload-" + hashlib.sha256(canonical.encode()).hexdigest()[:32]


def uploaded_record(body: bytes) -> dict[str, Any]:
    """The record of a ``POST /api/analyses`` body, as the rules read it (``400`` with the
    reason: RECORD.md's checks, as ``minodice replay``'s)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "bad_request", "a game record is JSON in UTF-8") from None
    try:
        loaded = parse_record(text)
    except InvalidRecordError as exc:
        raise ApiError(400, "bad_request", f"not a valid game record: {exc.message}") from None
    record = export_record(loaded.state, loaded.players)
    if not decisions_per_round(record):
        raise ApiError(400, "bad_request", "the record holds no decision yet: no round's bids "
                       "are all in")
    return record


class HandOver(RequestBody):
    """``POST /api/tables/ID/away``: the seat's token."""

    token: str = Field(max_length=100)


class HandedOver(Answer):
    """``200`` to ``POST /api/tables/ID/away``."""

    table: str
    seat: int
    autoplay: bool


class AnalysisProgress(Answer):
    """``POST``/``GET /api/tables/ID/analysis``: its progress, then its result."""

    status: Literal["running", "done", "failed"]
    done: int = Field(description="decisions analysed (every bid and roll counts)")
    total: int
    analysis: dict[str, Any] | None = Field(None, description="once done: what "
                                            "`minodice analyse --json` prints")
    message: str | None = None


class UploadedAnalysisProgress(AnalysisProgress):
    """``POST /api/analyses``, ``GET /api/analyses/ID``: an uploaded record's analysis,
    as a table's, with the id to follow it by."""

    id: str = Field(description="where to follow it: GET /api/analyses/ID")


def add_routes(app: FastAPI, lobby: Lobby, page: str, analyses: Analyses,
               heavy: Callable[[Request], Awaitable[None]]) -> None:
    """The replay page, the analysis and the hand-over routes (PROTOCOL.md). ``heavy``
    refuses a client over the limit of the heavy routes (the advisor's). The analyses are
    kept in the lobby's store."""
    if analyses.store is None:
        analyses.store = lobby.store

    @app.get("/replay", response_class=HTMLResponse, include_in_schema=False)
    @app.get("/replay/{table_id}", response_class=HTMLResponse, include_in_schema=False)
    async def replay_page() -> HTMLResponse:
        """The page (its script shows the replay viewer at these addresses)."""
        return HTMLResponse(page, headers=PAGE_HEADERS)

    def finished_record(table_id: str) -> dict[str, Any]:
        room = lobby.room(table_id)
        if room.row.status != "finished":
            raise ApiError(409, "conflict", "a game is analysed once it is over")
        return room.record()

    @app.post("/api/tables/{table_id}/analysis", status_code=202,
              response_model=AnalysisProgress, responses=error_answers(404, 409, 429, 503))
    async def analyse(table_id: str, request: Request) -> JSONResponse:
        """Start the analysis of a finished game (or give the one under way or done):
        202 while it runs, 200 with the result once done."""
        record = finished_record(table_id)
        job = await analyses.recall(table_id, record)
        if job is None or job.status == "failed":
            await heavy(request)
            job = analyses.start(table_id, record)
        return JSONResponse(job.to_json(), status_code=200 if job.status == "done" else 202)

    @app.get("/api/tables/{table_id}/analysis", response_model=AnalysisProgress,
             response_model_exclude_none=True, responses=error_answers(404, 409, 429, 503))
    async def analysis(table_id: str) -> dict[str, object]:
        """``{status, done, total}``, then also ``analysis``: ``minodice analyse --json``'s
        answer for the game (seed 0, the web's fewer samples)."""
        job = await analyses.recall(table_id, finished_record(table_id))
        if job is None:
            raise ApiError(404, "not_found", "nobody asked for this game's analysis yet")
        return job.to_json()

    @app.post(UPLOADS, status_code=202, response_model=UploadedAnalysisProgress,
              responses=error_answers(400, 413, 429, 503))
    async def analyse_upload(request: Request) -> JSONResponse:
        """Start the analysis of a record sent as the body (the replay viewer's file; at
        most :data:`MAX_UPLOADED_RECORD` bytes), or give the one under way or done for
        the same game: 202 while it runs, 200 with the result once done."""
        record = uploaded_record(await request.body())
        key = upload_key(record)
        job = analyses.get(key)
        if job is None or job.status == "failed":
            await heavy(request)
            job = analyses.start(key, record, stored=False,
                                 owner=client_address(request.scope))
        return JSONResponse({"id": key, **job.to_json()},
                            status_code=200 if job.status == "done" else 202)

    @app.get(UPLOADS + "/{key}", response_model=UploadedAnalysisProgress,
             response_model_exclude_none=True, responses=error_answers(404, 429))
    async def uploaded_analysis(key: str) -> dict[str, object]:
        """An uploaded record's analysis: ``{id, status, done, total}``, then also
        ``analysis``. ``404`` when this process has none by that id (never asked, forgotten
        among the newest it keeps, or asked of another process): send the record again."""
        job = analyses.get(key) if key.startswith("upload-") else None
        if job is None:
            raise ApiError(404, "not_found", "no analysis of that id here; send the record "
                           "again (POST /api/analyses)")
        return {"id": key, **job.to_json()}

    @app.post("/api/tables/{table_id}/away", response_model=HandedOver,
              responses=error_answers(400, 403, 404, 409, 413, 429, 503))
    async def hand_over(table_id: str, body: HandOver) -> dict[str, object]:
        """The seat's person leaves it to the stand-in bot now, until they connect again."""
        room = lobby.room(table_id)
        seat = lobby.seat_of(room, body.token)
        if seat is None:
            raise ApiError(403, "forbidden", "this token opens no seat at this table")
        if room.row.status != "playing" or not await room.hand_to_bot(seat):
            raise ApiError(409, "conflict", "only a game in play can be handed to a bot")
        return {"table": room.id, "seat": seat, "autoplay": True}
