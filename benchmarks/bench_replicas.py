"""A lecture on replicas: N replicas behind nginx (deploy/replicas.py), a class through the proxy.

Starts ``--replicas`` replicas, each pinned to its own core where the machine has one, and nginx
in front; then runs benchmarks/bench_classroom.py's class through nginx (websocket proxied). With
``--kill-at S`` it kills replica 0 S seconds into the class (SIGKILL: a crash): its students'
sockets close, they reconnect through nginx to the survivors as a browser does, and the report
counts the changes that did not take effect (a rerun whose page shows another value).

The report adds, per replica: the sessions it held once the class was in, its CPU seconds, and
the reruns per second that makes per core.

Run from the repository root:
``.venv/bin/python -m benchmarks.bench_replicas --replicas 2 --students 300 --seconds 60``
(nginx: ``apt-get install -y nginx``). It stops nginx and every replica it started.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.bench_classroom import (
    ClassPlan,
    ClassResult,
    ServerWatch,
    machine_reference_ms,
    report,
    run_class_async,
    summary,
)
from deploy.replicas import ROOT, Replicas


async def _class_with_kill(
    plan: ClassPlan, replicas: Replicas, kill_at: float | None, out
) -> tuple[ClassResult, list[int]]:
    watch = ServerWatch([*replicas.pids, *nginx_pids(replicas.proxy.pid)])
    watch.start()
    t0 = time.perf_counter()
    task = asyncio.create_task(run_class_async(plan, replicas.url))
    census = min(plan.arrive + 10.0, plan.seconds / 2)
    held: list[int] = []
    # The sessions each replica holds once the class is in, or just before an earlier kill.
    for moment in sorted({census, *([kill_at] if kill_at is not None else [])}):
        await asyncio.sleep(max(0.0, moment - (time.perf_counter() - t0)))
        held = held or [replicas.sessions(i) for i in range(replicas.count)]
        if moment == kill_at:
            out(
                f"killing replica 0 (pid {replicas.pids[0]}, {replicas.sessions(0)} sessions) "
                f"{time.perf_counter() - t0:.1f} s into the class"
            )
            replicas.kill(0)
    result = await task
    if kill_at is not None:
        early = sum(
            1
            for s in result.students
            if s.reconnect_at and s.reconnect_at[0] - result.started < (s.first_page_at or 1e9)
        )
        out(f"{early} students lost their replica before their first page and opened it again")
    result.server = watch.stop()
    return result, held


def nginx_pids(master: int) -> list[int]:
    """nginx's master and its workers (they do the proxying)."""
    try:
        with open(f"/proc/{master}/task/{master}/children") as children:
            return [master, *(int(pid) for pid in children.read().split())]
    except OSError:
        return [master]


def per_replica(result: ClassResult, held: list[int]) -> list[str]:
    s = summary(result)
    wall = result.plan.seconds
    total = max(1, sum(held))
    lines = []
    for i, sessions in enumerate(held):
        cpu = s.get(f"server{i}_cpu_s", float("nan"))
        share = sessions / total
        lines.append(
            f"  replica {i}   {sessions} sessions at the start, CPU {cpu:.1f} s of {wall:.0f} s "
            f"({100 * cpu / wall:.0f} % of its core), ~{share * s['reruns_per_s']:.1f} reruns/s"
        )
    nginx = sum(
        v
        for k, v in s.items()
        if k.startswith("server")
        and k.endswith("_cpu_s")
        and k not in {f"server{i}_cpu_s" for i in range(len(held))}
        and k != "server_cpu_s"
    )
    lines.append(f"  nginx       CPU {nginx:.1f} s of {wall:.0f} s")
    return lines


def main(argv: Sequence[str] | None = None, out=print) -> ClassResult:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replicas", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--page", default="Playground")
    ap.add_argument("--students", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--arrive", type=float, default=0.0)
    ap.add_argument("--own-seed", action="store_true")
    ap.add_argument("--kill-at", type=float, help="kill replica 0 this many s into the class")
    ap.add_argument("--root", type=Path, default=ROOT, help="the app folder (default: this repo)")
    args = ap.parse_args(argv)
    plan = ClassPlan(
        page=args.page,
        students=args.students,
        seconds=args.seconds,
        arrive=args.arrive,
        own_seed=args.own_seed,
    )
    reference = machine_reference_ms()
    with Replicas(count=args.replicas, root=args.root) as replicas:
        out(
            f"{args.replicas} replicas behind nginx at {replicas.url} "
            f"(pids {replicas.pids}, nginx {replicas.proxy.pid}); load {os.getloadavg()[0]:.1f}"
        )
        result, held = asyncio.run(_class_with_kill(plan, replicas, args.kill_at, out))
        result.reference_ms = reference
        out(report(result, f"{args.page} through nginx"))
        for line in per_replica(result, held):
            out(line)
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
