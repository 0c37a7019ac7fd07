"""A lecture hall at once: N students open the same share link, then each moves a control every
~3 s, over Streamlit's own websocket protocol (what a browser tab does, minus the drawing).

Each simulated student is one websocket session deep-linked to a page (the share link's page and
query string, as the browser sends them in its first ``rerun_script``). All first pages are
requested within ``--arrive`` seconds (0: the whole room at the same moment, the worst case).
Then, until ``--seconds`` after the class opened the link, every student changes one of the
page's controls every ``--every`` s (± ``--jitter`` s, uniformly), to a random value. The changes
are due on that schedule whatever the server does (open loop): a student sends a change when it
is due, or as soon as the previous one has finished if that one is late. The report:

- rerun: from when a change was due to its ``script_finished`` (so a server that falls behind
  shows as growing times) — p50, p95, max;
- first page: per student from its request to ``script_finished``, and the time from the class
  opening the link until the LAST student had a page;
- errors: exceptions drawn in a page, runs that did not finish successfully, ``page_not_found``,
  closed sockets, timeouts;
- the server: resident memory (start, peak, end) and CPU seconds (per replica behind a proxy),
  CPU per change and the share of a core it was busy once every student had a page;
- the machine: the CPU time of one fixed Playground run in a process of its own, measured in the
  same run (``machine_reference_ms``), to scale every figure to another machine by.

By default it starts ``streamlit run app.py`` itself, pinned to core 0 (``taskset``), and pins
itself to core 1. ``--url`` points it at a running server or proxy instead (``--pid`` adds the
server processes to watch). It only talks to 127.0.0.1 and stops only the server it started.

Run from the repository root, e.g.::

    .venv/bin/python -m benchmarks.bench_classroom --page Playground --students 100 --seconds 60
    .venv/bin/python -m benchmarks.bench_classroom --page Monte_Carlo --own-seed
    .venv/bin/python -m benchmarks.bench_classroom --url http://127.0.0.1:8600 --students 300
    .venv/bin/python -m benchmarks.bench_classroom --cpu-quota 0.078   # Community Cloud's floor

Importable: ``run_class(ClassPlan(...), url)`` returns a :class:`ClassResult`; ``summary`` turns
it into numbers; the CI test (tests/test_classroom.py) drives a small class through nginx.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import parse_qsl, urlencode

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks.floor import cpu_quota, minimal_server
from tests.streamlit_server import REPO_ROOT, StreamlitServer

TIMEOUT = 60.0  # a rerun or first page slower than this counts as an error
OK = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_SUCCESSFULLY")
FRAGMENT_OK = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_FRAGMENT_RUN_SUCCESSFULLY")
RERUN_INTERRUPTED = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")
WIDGET_TYPES = ("slider", "selectbox", "radio", "checkbox", "number_input", "text_input")

#: What a student moves on each page: widget keys (the suffix of Streamlit's widget id).
CONTROLS: dict[str, tuple[str, ...]] = {
    # Home's quality and the Playground's bars move in the browser (a live view): the server
    # hears of the weights when the bars rest (SYNC_REST_S below) or before another control.
    # "bars" sends what the view sends then: a trigger with the new weights (a drag of one bar)
    # and the gesture's number.
    "": ("ui.seed",),
    "Playground": ("bars",),
    "One_draw": ("w.draws",),
    "Monte_Carlo": ("w.n",),
    "Bug_zoo": ("w.bug",),
    "Many_words_per_call": ("w.pair", "w.gamma", "w.c", "w.temp", "w.length"),
    "Why_its_exact": ("w.leak", "w.case"),
    "Rejection_sampling": ("w.runs",),
    "Variants_lab": ("w.k", "w.eps", "w.delta", "w.variant"),
    "The_debate": ("w.gamma", "w.c"),
}


# ------------------------------------------------------------------------------------ the plan


@dataclass(frozen=True)
class ClassPlan:
    """Who opens what, when, and how often they move a control."""

    page: str = "Playground"  # the URL path of the page ("" for Home)
    students: int = 100
    seconds: float = 60.0  # from the class opening the link to the last change
    every: float = 3.0  # mean time between two changes of one student
    jitter: float = 1.0  # each gap is every ± jitter, uniformly
    arrive: float = 0.0  # first pages requested uniformly within this many seconds
    query: str = ""  # the share link's query string (the same for the whole class)
    own_seed: bool = False  # each student's link carries its own seed (seed=1000+i)
    controls: tuple[str, ...] = ()  # widget keys to move (default: CONTROLS[page])
    seed: int = 0  # the load's own randomness (which control, which value, when)

    def keys(self) -> tuple[str, ...]:
        return self.controls or CONTROLS[self.page]

    def link_query(self, i: int) -> str:
        """Student ``i``'s query string."""
        if not self.own_seed:
            return self.query
        pairs = [(k, v) for k, v in parse_qsl(self.query) if k != "seed"]
        return urlencode([*pairs, ("seed", str(1000 + i))])


@dataclass
class Student:
    """What one session saw: its timings, its errors, its page's controls and current link."""

    index: int
    first_page: float | None = None  # seconds from its request to script_finished
    first_page_at: float | None = None  # seconds from the class start to that moment
    reruns: list[float] = field(default_factory=list)
    rerun_at: list[float] = field(default_factory=list)  # perf_counter when each one finished
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0
    reconnect_at: list[float] = field(default_factory=list)  # perf_counter of each reconnection
    lost: list[str] = field(default_factory=list)  # changes the page did not show after its run
    widgets: dict[str, object] = field(default_factory=dict)  # key -> element proto
    ids: dict[str, str] = field(default_factory=dict)  # key -> widget id
    sent: dict[str, WidgetState] = field(default_factory=dict)  # widget id -> last value
    trigger: WidgetState | None = None  # a live view's trigger, sent until a run takes it in
    fragments: dict[str, str] = field(default_factory=dict)  # widget id -> its fragment's id
    fragment: str = ""  # the fragment to rerun: the one of the control just moved, if any
    timed_fragment: bool = False  # the page has a fragment with run_every
    gestures: int = 0  # gestures sent to the live view
    query: str = ""  # the address bar's query string (page_info_changed follows it)
    cached: set[str] = field(default_factory=set)  # hashes of cacheable messages received
    socket: object = None  # the websocket in use


@dataclass
class ClassResult:
    plan: ClassPlan
    students: list[Student]
    started: float  # perf_counter at the class start
    wall: float  # seconds the class took
    client_cpu: float  # CPU seconds of this load generator
    server: dict[str, float] = field(default_factory=dict)  # filled by the caller
    load: tuple[float, float] = (float("nan"), float("nan"))  # 1-min load average, before/after
    reference_ms: float = float("nan")  # machine_reference_ms() measured beside the class


# ------------------------------------------------------------------------- one rerun, one reply


def rerun_message(student: Student, page: str, url: str) -> bytes:
    """The BackMsg a browser tab sends to (re)run its page with its controls' values."""
    msg = BackMsg()
    state = msg.rerun_script
    state.page_name = page
    state.query_string = student.query
    # As a browser does: a control inside a fragment reruns only that fragment.
    state.fragment_id = student.fragment
    state.widget_states.widgets.extend(student.sent.values())
    if student.trigger is not None:
        state.widget_states.widgets.append(student.trigger)
    state.cached_message_hashes.extend(student.cached)
    state.context_info.url = f"{url}/{page}"
    state.context_info.timezone = "Europe/Paris"
    state.context_info.locale = "en-US"
    return msg.SerializeToString()


def read_forward(student: Student, raw: bytes) -> int | None:
    """Take in one ForwardMsg: note widgets, the link, errors; the finish status if it is one."""
    msg = ForwardMsg()
    msg.ParseFromString(raw)
    if msg.metadata.cacheable and msg.hash:
        student.cached.add(msg.hash)
    kind = msg.WhichOneof("type")
    if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
        _note_element(student, msg.delta.new_element, msg.delta.fragment_id)
    elif kind == "auto_rerun":
        student.timed_fragment = True
    elif kind == "page_info_changed":
        student.query = msg.page_info_changed.query_string
    elif kind == "page_not_found":
        student.errors.append(f"page_not_found: {msg.page_not_found.page_name!r}")
    elif kind == "session_event" and msg.session_event.WhichOneof("type") in (
        "script_compilation_exception",
    ):
        student.errors.append("script compilation exception")
    elif kind == "script_finished":
        return msg.script_finished
    return None


def _note_element(student: Student, element, fragment: str) -> None:
    kind = element.WhichOneof("type")
    widget_id = getattr(getattr(element, kind or "", None), "id", None)
    if fragment and isinstance(widget_id, str):
        student.fragments[widget_id] = fragment
    if kind == "exception":
        student.errors.append(f"exception: {element.exception.type}: {element.exception.message}")
    elif kind == "bidi_component":
        view = element.bidi_component
        if view.component_name == "specviz.live":
            student.widgets[BARS], student.ids[BARS] = view, view.id
        # A tab sends its components' state with every run, as it does a slider's value.
        student.sent.setdefault(view.id, WidgetState(id=view.id, json_value="{}"))
    elif kind in WIDGET_TYPES:
        widget = getattr(element, kind)
        key = widget.id.rsplit("-", 1)[-1]
        student.widgets[key] = widget
        student.ids[key] = widget.id


async def until_finished(ws, student: Student) -> int:
    """Read messages until this run's ``script_finished``; return its status."""
    while True:
        status = read_forward(student, await asyncio.wait_for(ws.recv(), TIMEOUT))
        if status is not None and status != RERUN_INTERRUPTED:
            return status


async def run_once(ws, student: Student, page: str, url: str) -> float:
    """Send a rerun with the student's current values; seconds until it finished."""
    start = time.perf_counter()
    await ws.send(rerun_message(student, page, url))
    status = await until_finished(ws, student)
    student.trigger = None  # a trigger is sent once; a run in flight when a replica died resends it
    student.fragment = ""
    if status not in (OK, FRAGMENT_OK):
        student.errors.append(f"run finished with {ForwardMsg.ScriptFinishedStatus.Name(status)}")
    return time.perf_counter() - start


# ------------------------------------------------------------------------------ moving controls


def random_change(widget, rng: random.Random) -> WidgetState:
    """A new value for ``widget`` (a slider, select slider, select box, radio, toggle), other
    than the one it shows when there is another (a browser sends nothing for no change)."""
    for _ in range(8):
        state = _random_state(widget, rng)
        if sent(state) != shown(widget):
            break
    return state


def _random_state(widget, rng: random.Random) -> WidgetState:
    state = WidgetState(id=widget.id)
    options = list(getattr(widget, "options", ()))
    if widget.DESCRIPTOR.name == "NumberInput":  # the seed: a whole number a student types
        state.int_value = rng.randint(0, 999)
    elif hasattr(widget, "data_type") and options:  # select_slider: formatted options
        state.string_array_value.data.append(rng.choice(options))
    elif hasattr(widget, "data_type"):  # slider: a number in its range, on its step
        step = widget.step or 1
        steps = round((widget.max - widget.min) / step)
        state.double_array_value.data.append(widget.min + rng.randint(0, steps) * step)
    elif options:  # selectbox, radio
        state.string_value = rng.choice(options)
    elif widget.DESCRIPTOR.name == "Checkbox":
        state.bool_value = rng.random() < 0.5
    else:
        raise ValueError(f"no random value for a {widget.DESCRIPTOR.name}")
    return state


#: The control key of the Playground's live view (its bars).
BARS = "bars"
#: The live view tells the server of its weights once the bars rest this long (live.js's
#: SYNC_REST_MS), or before the learner touches anything else: a drag is a run only then.
SYNC_REST_S = 5.0


def drag_bar(student: Student, rng: random.Random) -> WidgetState:
    """What the live view sends when a drag of one bar ends: a ``weights`` trigger."""
    view = json.loads(student.widgets[BARS].json)
    weights = {"p": list(view["p"]), "q": list(view["q"])}
    model = rng.choice(("p", "q"))
    i = rng.randrange(len(weights[model]))
    weights[model][i] = rng.choice(
        [w for w in range(view["max_weight"] + 1) if w != weights[model][i]]
    )
    student.gestures += 1
    value = {**weights, "gesture": student.gestures}
    trigger = WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{student.ids[BARS]}__events")
    trigger.json_trigger_value = json.dumps([{"event": "weights", "value": value}])
    student.trigger = trigger
    return trigger


def change_one(student: Student, keys: Sequence[str], rng: random.Random) -> str | None:
    """Move one of ``keys`` the page showed; return its key (None if the page has none)."""
    shown = [key for key in keys if key in student.widgets]
    if not shown:
        student.errors.append(f"none of the controls {list(keys)} on the page")
        return None
    key = rng.choice(shown)
    if key == BARS:
        drag_bar(student, rng)
    else:
        change = random_change(student.widgets[key], rng)
        student.sent[change.id] = change
    student.fragment = student.fragments.get(student.ids[key], "")
    return key


# ------------------------------------------------------------------------------ one student


async def connect(url: str):
    return await websockets.connect(
        url.replace("http://", "ws://") + "/_stcore/stream",
        subprotocols=["streamlit"],
        max_size=None,
        open_timeout=TIMEOUT,
        ping_interval=None,  # like the browser: the server pings, the tab answers
    )


async def attend(
    student: Student, plan: ClassPlan, url: str, start: float, rng: random.Random
) -> None:
    """One student: wait for their arrival, open the link, then move controls until the end."""
    await asyncio.sleep(max(0.0, start + rng.uniform(0, plan.arrive) - time.perf_counter()))
    student.query = plan.link_query(student.index)
    end = start + plan.seconds
    try:
        ws = await open_page(student, plan, url, end)
        if ws is None:
            return
        student.first_page_at = time.perf_counter() - start
        try:
            await interact(ws, student, plan, url, end, rng)
        finally:
            await student.socket.close()
    except TimeoutError:
        student.errors.append(f"timeout: no script_finished within {TIMEOUT:.0f} s")
    except websockets.ConnectionClosed as closed:
        student.errors.append(f"socket closed by the server: {closed}")


async def open_page(student: Student, plan: ClassPlan, url: str, end: float):
    """The first page, as a browser tab gets it: a socket that cannot be opened, or that closes
    before the page came (its replica died), is opened again and the page asked for again. The
    first page's time runs from the first request."""
    asked = time.perf_counter()
    ws = await reopen(student, url, end, again=False)
    while ws is not None:
        try:
            await run_once(ws, student, plan.page, url)
        except websockets.ConnectionClosed:
            ws = await reopen(student, url, end)
            continue
        student.first_page = time.perf_counter() - asked
        return ws
    return None


async def interact(ws, student: Student, plan: ClassPlan, url: str, end: float, rng) -> None:
    """Move a control every ~``plan.every`` s until ``end``; reconnect as a browser would.

    Open loop: the changes are due on a schedule that does not wait for the server, and each
    is timed from when it was due, so a server that falls behind shows as growing times (a
    change due while the previous one is still running is sent as soon as that one is done)."""
    due = time.perf_counter() + rng.uniform(0, plan.every)
    while due < end:
        if await closed_while_waiting(ws, due):
            ws = await reopen(student, url, end)
            if ws is None:
                return
            # An idle tab sends nothing on reconnecting — unless its page has a timed fragment:
            # then Streamlit's frontend asks for a whole run at once (the Playground relies on it).
            if student.timed_fragment:  # a whole run; a drag still in the view is not in it
                held, student.trigger = (student.fragment, student.trigger), None
                student.fragment = ""
                await run_once(ws, student, plan.page, url)
                student.fragment, student.trigger = held
            continue
        key = change_one(student, plan.keys(), rng)
        if key is None:
            return
        following = due + plan.every + rng.uniform(-plan.jitter, plan.jitter)
        if key == BARS and following < end and following - due < SYNC_REST_S:
            due = following  # the view keeps the gesture: the learner is still dragging
            continue
        try:
            await run_once(ws, student, plan.page, url)
        except websockets.ConnectionClosed:
            # The replica went away during the run. A browser whose run was in flight asks the
            # new server for a whole run at once, with the same values (and the change in them).
            ws = await reopen(student, url, end)
            if ws is None:
                return
            student.fragment = ""
            await run_once(ws, student, plan.page, url)
        student.rerun_at.append(time.perf_counter())
        student.reruns.append(student.rerun_at[-1] - due)
        check_kept(student, key)
        due = following


async def closed_while_waiting(ws, until: float) -> bool:
    """Sleep until ``until``; True if the server closed the socket meanwhile."""
    try:
        await asyncio.wait_for(
            asyncio.shield(ws.wait_closed()), max(0.0, until - time.perf_counter())
        )
    except TimeoutError:
        return False
    return True


async def reopen(student: Student, url: str, end: float, again: bool = True):
    """Connect (``again``: through the proxy, to another replica), retrying like the frontend
    does; None once no server took the socket by ``TIMEOUT`` s after the class's end."""
    delay = 0.05
    while time.perf_counter() < end + TIMEOUT:
        try:
            ws = await connect(url)
        except (OSError, websockets.InvalidHandshake):
            await asyncio.sleep(delay)
            delay = min(2 * delay, 1.0)
            continue
        if again:
            student.reconnects += 1
            student.reconnect_at.append(time.perf_counter())
        student.socket = ws
        return ws
    student.errors.append("connection failed: no server took the socket")
    return None


def shown(widget) -> list:
    """What a widget element displays, in the form its WidgetState carries it."""
    if widget.DESCRIPTOR.name == "Slider":
        return list(widget.raw_value) if widget.options else list(widget.value)
    if widget.DESCRIPTOR.name in ("Selectbox", "Radio"):
        return [widget.raw_value]
    if widget.DESCRIPTOR.name == "Checkbox":
        return [widget.value]
    return []


def sent(state: WidgetState) -> list:
    kind = state.WhichOneof("value")
    if kind in ("double_array_value", "string_array_value"):
        return list(getattr(state, kind).data)
    return [getattr(state, kind)]


def check_kept(student: Student, key: str) -> None:
    """After a run: does the page show the value the student just set? If not, it was lost."""
    if key == BARS:
        gesture = json.loads(student.widgets[BARS].json)["gesture"]
        if gesture != student.gestures:
            student.lost.append(f"bars: gesture {student.gestures} sent, the page has {gesture}")
        return
    widget = student.widgets.get(key)
    state = student.sent.get(student.ids.get(key, ""))
    # A number input's proto does not say what it shows: nothing to compare.
    if widget is not None and state is not None and shown(widget) not in ([], sent(state)):
        student.lost.append(f"{key}: set {sent(state)}, the page shows {shown(widget)}")
        state.CopyFrom(state_shown(widget, state.id))  # follow what the page shows


def state_shown(widget, widget_id: str) -> WidgetState:
    """The WidgetState that says what ``widget`` shows now."""
    state = WidgetState(id=widget_id)
    values = shown(widget)
    if widget.DESCRIPTOR.name == "Slider" and widget.options:
        state.string_array_value.data.extend(values)
    elif widget.DESCRIPTOR.name == "Slider":
        state.double_array_value.data.extend(values)
    elif widget.DESCRIPTOR.name == "Checkbox":
        state.bool_value = values[0]
    else:
        state.string_value = values[0]
    return state


async def run_class_async(plan: ClassPlan, url: str) -> ClassResult:
    students = [Student(i) for i in range(plan.students)]
    rngs = [random.Random(f"{plan.seed}-{i}") for i in range(plan.students)]
    cpu, start, load = time.process_time(), time.perf_counter(), os.getloadavg()[0]
    await asyncio.gather(
        *(attend(s, plan, url, start, r) for s, r in zip(students, rngs, strict=True))
    )
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return ClassResult(plan, students, start, wall, cpu, load=(load, os.getloadavg()[0]))


def run_class(plan: ClassPlan, url: str) -> ClassResult:
    """Run a class against ``url`` (a server or a proxy); blocks until it is over."""
    return asyncio.run(run_class_async(plan, url))


# ------------------------------------------------------------------------------------ numbers


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0..1) of ``values``, nearest rank; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def summary(result: ClassResult) -> dict[str, float]:
    """The numbers of a class: rerun and first-page times (ms, s), counts, errors."""
    reruns = [t for s in result.students for t in s.reruns]
    firsts = [s.first_page for s in result.students if s.first_page is not None]
    arrived = [s.first_page_at for s in result.students if s.first_page_at is not None]
    errors = [e for s in result.students for e in s.errors]
    out = {
        "students": len(result.students),
        "reruns": len(reruns),
        "reruns_per_s": len(reruns) / max(result.plan.seconds, 1e-9),
        "rerun_p50_ms": 1e3 * percentile(reruns, 0.50),
        "rerun_p95_ms": 1e3 * percentile(reruns, 0.95),
        "rerun_max_ms": 1e3 * max(reruns, default=float("nan")),
        "first_p50_s": percentile(firsts, 0.50),
        "first_p95_s": percentile(firsts, 0.95),
        "first_max_s": max(firsts, default=float("nan")),
        "all_first_pages_s": max(arrived) if len(arrived) == len(result.students) else float("inf"),
        "errors": len(errors),
        "lost_changes": sum(len(s.lost) for s in result.students),
        "reconnects": sum(s.reconnects for s in result.students),
        "client_cpu_s": result.client_cpu,
    }
    return out | result.server


def rerun_p95_by_window(result: ClassResult, window: float = 10.0) -> list[float]:
    """Rerun p95 (ms) of the changes that ended in each ``window`` s from the class opening the
    link: where in the lesson the slow ones were (a fresh server's first seconds, or all along)."""
    by: dict[int, list[float]] = {}
    for student in result.students:
        # rerun_at is stamped after each change's run; reruns holds their durations in order.
        for took, at in zip(student.reruns, student.rerun_at, strict=False):
            by.setdefault(int((at - result.started) // window), []).append(took)
    return [1e3 * percentile(by.get(i, []), 0.95) for i in range(max(by, default=-1) + 1)]


def error_kinds(result: ClassResult) -> dict[str, int]:
    """How many errors of each kind (the text up to its first colon)."""
    kinds: dict[str, int] = {}
    for student in result.students:
        for error in student.errors:
            kind = error.split(":", 1)[0]
            kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def report(result: ClassResult, label: str = "") -> str:
    s = summary(result)
    plan = result.plan
    lines = [
        f"{label or plan.page or 'Home'}: {s['students']} students, {plan.seconds:.0f} s, a change "
        f"every {plan.every:g}±{plan.jitter:g} s, arrivals within {plan.arrive:g} s"
        + (", own seed each" if plan.own_seed else ""),
        f"  rerun       p50 {s['rerun_p50_ms']:6.0f} ms   p95 {s['rerun_p95_ms']:6.0f} ms   "
        f"max {s['rerun_max_ms']:6.0f} ms   ({s['reruns']} changes, {s['reruns_per_s']:.1f}/s)",
        f"  first page  p50 {s['first_p50_s']:6.2f} s    p95 {s['first_p95_s']:6.2f} s    "
        f"max {s['first_max_s']:6.2f} s    all students had a page after "
        f"{s['all_first_pages_s']:.2f} s",
        f"  errors      {s['errors']} {error_kinds(result) or ''}",
        "  rerun p95 by 10 s: " + " ".join(f"{p:.0f}" for p in rerun_p95_by_window(result)) + " ms",
    ]
    if gestures := sum(st.gestures for st in result.students):
        lines.append(
            f"  drags       {gestures} gestures in the browser; the server heard "
            f"{s['reruns']} of them (a drag is sent when the bars rest "
            f"{SYNC_REST_S:g} s, or before another control)"
        )
    if s["reconnects"] or s["lost_changes"]:
        lines.append(
            f"  failover    {s['reconnects']} reconnections, {s['lost_changes']} changes lost "
            "(the page showed another value after the change's run)"
        )
    if "rss_peak_mb" in s:
        lines.append(
            f"  server      RSS {s['rss_start_mb']:.0f} MB at start, {s['rss_peak_mb']:.0f} MB "
            f"peak, {s['rss_end_mb']:.0f} MB at the end; CPU {s['server_cpu_s']:.1f} s "
            f"({1e3 * s['server_cpu_s'] / max(1, s['reruns'] + s['students']):.0f} ms per run"
            + (
                f"; after the first pages {s['change_cpu_ms']:.1f} ms per change, "
                f"{s['core_percent']:.0f} % of a core)"
                if "change_cpu_ms" in s
                else ")"
            )
        )
    if result.reference_ms == result.reference_ms:
        ratio = (
            f": CPU per change = {s['change_cpu_ms'] / result.reference_ms:.2f} × that"
            if "change_cpu_ms" in s
            else ""
        )
        lines.append(
            f"  machine     a fixed Playground run costs {result.reference_ms:.1f} ms of CPU here "
            f"(median of {REFERENCE_RUNS}, measured in this run){ratio}"
        )
    lines.append(
        f"  load tool   CPU {s['client_cpu_s']:.1f} s; machine load average {result.load[0]:.1f} "
        f"before, {result.load[1]:.1f} after (the server and this tool make ~2: more means "
        "someone else was using the cores)"
    )
    return "\n".join(lines)


# ---------------------------------------------------------------------------- the machine

REFERENCE_RUNS = 9


def _reference_runs(repeat: int = REFERENCE_RUNS) -> float:
    """CPU ms of one Playground run in this process, median of ``repeat``: the same link each
    time, after one warm-up run (AppTest, no websocket: the app's code and this machine)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/1_Playground.py").run()
    times = []
    for _ in range(repeat):
        cpu = time.process_time()
        at.run()
        times.append(time.process_time() - cpu)
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    return 1e3 * statistics.median(times)


def machine_reference_ms() -> float:
    """The machine's speed, to put beside every figure: ``_reference_runs`` in a process of its
    own (so that the app's garbage-collector settings stay out of this one), on this process's
    cores. Runs of the same code differ up to 3× between machines of the same kind."""
    code = "from benchmarks.bench_classroom import _reference_runs; print(_reference_runs())"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    return float(done.stdout.split()[-1])


# ---------------------------------------------------------------------------- the server side


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MB (Linux)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


class ServerWatch:
    """Samples the RSS and CPU time of some processes every ``period`` s while a class runs
    (a process that dies keeps its last sample)."""

    def __init__(self, pids: Sequence[int], period: float = 0.5) -> None:
        self.pids = list(pids)
        self.period = period
        self.rss = {pid: rss_mb(pid) for pid in self.pids}
        self.start_rss = sum(self.rss.values())
        self.peak = self.start_rss
        self.cpu0 = {pid: cpu_seconds(pid) for pid in self.pids}
        self.cpu = dict(self.cpu0)
        self.history: list[tuple[float, float]] = []  # (perf_counter, total CPU s) per sample
        self._task: asyncio.Task | None = None

    def sample(self) -> None:
        for pid in self.pids:
            rss, cpu = rss_mb(pid), cpu_seconds(pid)
            if rss == rss:  # not NaN: the process is still there
                self.rss[pid], self.cpu[pid] = rss, cpu
            else:
                self.rss[pid] = 0.0
        self.peak = max(self.peak, sum(self.rss.values()))
        self.history.append((time.perf_counter(), sum(self.cpu.values())))

    async def _sample(self) -> None:
        while True:
            self.sample()
            await asyncio.sleep(self.period)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._sample())

    def stop(self) -> dict[str, float]:
        if self._task:
            self._task.cancel()
        self.sample()
        out = {
            "rss_start_mb": self.start_rss,
            "rss_peak_mb": self.peak,
            "rss_end_mb": sum(self.rss.values()),
            "server_cpu_s": sum(self.cpu[p] - self.cpu0[p] for p in self.pids),
        }
        for i, pid in enumerate(self.pids):
            out[f"server{i}_cpu_s"] = self.cpu[pid] - self.cpu0[pid]
        return out


async def _watched(plan: ClassPlan, url: str, pids: Sequence[int]) -> ClassResult:
    watch = ServerWatch(pids)
    watch.start()
    result = await run_class_async(plan, url)
    result.server = watch.stop() | _cpu_per_change(result, watch.history)
    return result


def _cpu_per_change(result: ClassResult, history: list[tuple[float, float]]) -> dict[str, float]:
    """Server CPU per change once every student has a page (the first pages left out): from the
    first sample after the last first page to the end, over the changes that ended meanwhile."""
    arrived = [s.first_page_at for s in result.students]
    if not history or None in arrived:
        return {}
    since = result.started + max(arrived)
    later = [(t, cpu) for t, cpu in history if t >= since]
    if len(later) < 2:
        return {}
    changes = sum(at >= later[0][0] for s in result.students for at in s.rerun_at)
    cpu = later[-1][1] - later[0][1]
    return {
        "change_cpu_ms": 1e3 * cpu / max(1, changes),
        "core_percent": 100 * cpu / max(1e-9, later[-1][0] - later[0][0]),
    }


def run_watched(plan: ClassPlan, url: str, pids: Sequence[int] = ()) -> ClassResult:
    """``run_class`` while sampling the memory and CPU of the server processes ``pids``."""
    return asyncio.run(_watched(plan, url, pids))


class PinnedServer(StreamlitServer):
    """``streamlit run app.py`` pinned to some cores with ``taskset`` (when there is one)."""

    cores: str | None = None

    def command(self) -> list[str]:
        base = super().command()
        if self.cores is not None and shutil.which("taskset"):
            return ["taskset", "-c", self.cores, *base]
        return base


def pinned_server(cores: str | None, extra_args: Sequence[str] = ()) -> PinnedServer:
    server = PinnedServer(extra_args=list(extra_args))
    server.cores = cores
    return server.start()


def pin_self(cores: str | None) -> None:
    """Run this process on ``cores`` ("1", "0-1"), if the machine has them."""
    if cores is None or not hasattr(os, "sched_setaffinity"):
        return
    wanted: set[int] = set()
    for part in cores.split(","):
        low, _, high = part.partition("-")
        wanted.update(range(int(low), int(high or low) + 1))
    available = os.sched_getaffinity(0)
    if wanted & available:
        os.sched_setaffinity(0, wanted & available)


# ------------------------------------------------------------------------------ command line


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--page", default="Playground", help="URL path: Playground, Monte_Carlo, ...")
    ap.add_argument("--students", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--every", type=float, default=3.0)
    ap.add_argument("--jitter", type=float, default=1.0)
    ap.add_argument("--arrive", type=float, default=0.0, help="first pages within this many s")
    ap.add_argument("--query", default="", help="the share link's query string")
    ap.add_argument("--own-seed", action="store_true", help="each student on their own seed")
    ap.add_argument(
        "--lecturer-first",
        type=float,
        default=0.0,
        metavar="S",
        help="the lecturer opens the link S seconds before the class does (0: nobody before)",
    )
    ap.add_argument("--url", help="a running server or proxy (default: start one)")
    ap.add_argument("--pid", type=int, action="append", default=[], help="server pid to watch")
    ap.add_argument("--server-cores", default="0", help="taskset cores of the started server")
    ap.add_argument("--client-cores", default="1", help="cores of this load generator")
    ap.add_argument("--server-arg", action="append", default=[], help="extra streamlit flag")
    ap.add_argument(
        "--cpu-quota",
        type=float,
        metavar="CORES",
        help="hold the started server to this share of a core (0.078: Community "
        "Cloud's guarantee; needs root), and run the same class on the minimal page "
        "(one slider, one Plotly chart) held to it too, for reference",
    )
    ap.add_argument(
        "--no-reference",
        action="store_true",
        help="with --cpu-quota: no minimal page run (a sweep runs it once)",
    )
    ap.add_argument(
        "--reference-pages",
        type=int,
        default=0,
        metavar="N",
        help="with --cpu-quota: N one-line pages beside the minimal page (11: SpecViz's layout)",
    )
    return ap.parse_args(argv)


def lecturer_first(plan: ClassPlan, url: str, seconds: float, out: Callable[[str], None]) -> None:
    """The lecturer opens the class's link (one session, first page only) ``seconds`` before the
    class does, as the deployment notes ask (README: open it yourself before class)."""
    if seconds <= 0:
        return
    start = time.perf_counter()
    result = run_class(replace(plan, students=1, seconds=0.0, own_seed=False), url)
    first = result.students[0].first_page or float("nan")
    out(f"the lecturer's first page: {first:.2f} s; the class opens the link {seconds:g} s later")
    time.sleep(max(0.0, start + seconds - time.perf_counter()))


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> ClassResult:
    args = parse_args(argv)
    plan = ClassPlan(
        page=args.page,
        students=args.students,
        seconds=args.seconds,
        every=args.every,
        jitter=args.jitter,
        arrive=args.arrive,
        query=args.query,
        own_seed=args.own_seed,
    )
    pin_self(args.client_cores)
    reference = machine_reference_ms()  # before the server starts: it is fresh for the class
    if args.url:
        lecturer_first(plan, args.url.rstrip("/"), args.lecturer_first, out)
        result = run_watched(plan, args.url.rstrip("/"), args.pid)
        result.reference_ms = reference
        out(report(result))
        return result
    extra = [a for arg in args.server_arg for a in arg.split()]
    server = pinned_server(args.server_cores, extra)
    try:
        out(f"server on cores {args.server_cores}: healthy after {server.startup_seconds:.2f} s")
        if args.cpu_quota:
            warm_up(plan, server.url)
        with cpu_quota([server.process.pid], args.cpu_quota) as held:
            out(f"the server is {held}")
            lecturer_first(plan, server.url, args.lecturer_first, out)
            result = run_watched(plan, server.url, [server.process.pid])
        result.reference_ms = reference
        out(report(result))
    finally:
        server.stop()
    if args.cpu_quota and not args.no_reference:
        out(minimal_page(plan, args.server_cores, args.cpu_quota, reference, args.reference_pages))
    return result


def warm_up(plan: ClassPlan, url: str) -> None:
    """One first page before the quota (the lecturer opening the link before class, as the
    README asks): the imports a fresh server does on its first run are not the class's."""
    run_class(replace(plan, students=1, seconds=0.0, own_seed=False), url)


def minimal_page(
    plan: ClassPlan, cores: str, share: float, reference: float, pages: int = 0
) -> str:
    """The same class on the minimal Streamlit page (one slider, one Plotly chart; ``pages``
    empty pages beside it) held to the same share: what any design that runs a script per
    student per change costs at best."""
    minimal = replace(plan, page="", query="", own_seed=False, controls=("v",))
    wrap = ["taskset", "-c", cores] if shutil.which("taskset") else []
    with minimal_server(wrap, pages) as server:
        warm_up(minimal, server.url)
        with cpu_quota([server.process.pid], share):
            result = run_watched(minimal, server.url, [server.process.pid])
    result.reference_ms = reference
    beside = f", {pages} pages beside it" if pages else ""
    return report(result, f"the minimal page (reference, same quota{beside})")


if __name__ == "__main__":
    main(sys.argv[1:])
