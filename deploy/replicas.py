"""Run SpecViz as N replicas behind nginx on this machine, and stop them cleanly.

    python -m deploy.replicas                    # 2 replicas (one per core) behind :8500
    python -m deploy.replicas --replicas 4 --port 80 --listen 0.0.0.0
    python -m deploy.replicas --replicas 3 --postgres    # Ask the room's rooms shared by all 3

Each replica is ``streamlit run app.py`` on its own loopback port (8501, 8502, ...), pinned to one
core with ``taskset`` where the machine has a core for it; nginx (Debian's package:
``apt-get install -y nginx``) listens on ``--port`` and spreads students round robin, with the
websocket proxied and Streamlit's frontend served from disk, precompressed
(deploy/nginx.conf.template). The replicas share one cookie secret, so a
browser can move between them. Ask the room keeps each replica's rooms in its own SQLite file
unless the replicas share a database: ``--postgres`` starts a throwaway PostgreSQL cluster beside
them (Debian's ``postgresql`` package; its data is deleted on exit) and gives every replica its URL
as ``SPECVIZ_POLLS_URL``; ``--polls-url`` names a server of your own instead. Ctrl-C or SIGTERM
stops nginx, then every replica, then PostgreSQL, each by PID.

Importable: ``with Replicas(count=2) as r: ... r.url ... r.kill(0) ...`` (the tests and
benchmarks/bench_replicas.py use it).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import importlib.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from string import Template

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).with_name("nginx.conf.template")
#: What gzip makes smaller; fonts (woff2) and images are compressed already.
COMPRESSIBLE = (".js", ".css", ".json", ".svg", ".html", ".txt", ".map")

#: Debian's PostgreSQL programs (apt-get install -y postgresql), newest last.
PG_BIN = sorted(Path("/usr/lib/postgresql").glob("*/bin"))

#: The flags every replica runs with (the rest is in .streamlit/config.toml).
STREAMLIT_FLAGS = (
    "--server.headless",
    "true",
    "--browser.gatherUsageStats",
    "false",
    "--server.fileWatcherType",
    "none",
)


class StartError(RuntimeError):
    """A replica or nginx did not come up; the message has its log."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def postgres_cluster(durable: bool = True) -> Iterator[str]:
    """A throwaway PostgreSQL cluster (Debian's programs) on a free loopback port, user "polls"
    with no password, deleted on exit; its server's URL (add ``/postgres``, or a database made
    on it). ``durable=False`` skips fsync: faster, and safe where the data dies with the test."""
    if not PG_BIN:
        raise StartError("no PostgreSQL programs (apt-get install -y postgresql)")
    # In /tmp itself: pytest's own temp folders are closed to other users.
    folder = Path(tempfile.mkdtemp(prefix="specviz-pg-"))
    # PostgreSQL refuses to run as root: as root, the cluster runs as the postgres user.
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_user:
        shutil.chown(folder, "postgres")
    data, port = folder / "data", free_port()
    initdb, pg_ctl = (str(PG_BIN[-1] / name) for name in ("initdb", "pg_ctl"))
    run = [*as_user, pg_ctl, "-D", str(data)]
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1"
    options += "" if durable else " -c fsync=off"
    try:
        subprocess.run(
            [*as_user, initdb, "-D", str(data), "-U", "polls", "--auth=trust"],
            check=True,
            capture_output=True,
        )
        subprocess.run(
            [*run, "-o", options, "-w", "-l", str(folder / "log"), "start"],
            check=True,
            capture_output=True,
        )
        yield f"postgresql+psycopg://polls@127.0.0.1:{port}"
    finally:
        subprocess.run([*run, "-m", "fast", "stop"], check=False, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def find_nginx() -> str | None:
    """nginx from $SPECVIZ_NGINX, the PATH, or Debian's /usr/sbin (not on a user's PATH)."""
    explicit = os.environ.get("SPECVIZ_NGINX")
    if explicit is not None:
        return explicit if os.access(explicit, os.X_OK) else None
    for candidate in (shutil.which("nginx"), "/usr/sbin/nginx", "/usr/local/sbin/nginx"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def healthy(url: str, timeout: float = 2.0) -> bool:
    """True if ``url``/_stcore/health answers "ok"."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout) as resp:
            return resp.status == 200 and resp.read().strip() == b"ok"
    except (urllib.error.URLError, OSError, TimeoutError):
        return False


def cores() -> list[int]:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def streamlit_static() -> Path:
    """The folder of Streamlit's frontend (index.html, static/) in this Python's packages."""
    return Path(importlib.util.find_spec("streamlit").origin).parent / "static"


def precompress(source: Path, target: Path) -> Path:
    """``source`` copied into ``target`` for nginx's gzip_static, every compressible file beside
    its .gz (level 9, once: ~1 s of CPU for Streamlit's 23 MB). Copies, not links: nginx's
    workers (user nobody) cannot follow a link into a virtualenv they may not enter (CI's is in
    a private temporary folder: 403 for every file)."""
    for path in source.rglob("*"):
        if path.is_file():
            link = target / path.relative_to(source)
            link.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, link)
            if path.suffix in COMPRESSIBLE:
                packed = gzip.compress(path.read_bytes(), 9, mtime=0)
                if len(packed) < path.stat().st_size:  # not so for a few tiny scripts
                    link.with_name(link.name + ".gz").write_bytes(packed)
    return target


def nginx_config(
    listen: str, ports: list[int], runtime: Path, static: Path, workers: str = "1"
) -> str:
    """deploy/nginx.conf.template filled in for replicas on 127.0.0.1:``ports``."""
    upstreams = "\n        ".join(
        f"server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;" for port in ports
    )
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    return Template(TEMPLATE.read_text()).safe_substitute(
        SPECVIZ_LISTEN=listen,
        SPECVIZ_UPSTREAMS=upstreams,
        SPECVIZ_RUNTIME_DIR=str(runtime),
        SPECVIZ_USER="user nobody nogroup;" if as_root else "",
        SPECVIZ_WORKERS=workers,
        SPECVIZ_STATIC=str(static),
    )


@dataclass
class Process:
    """One started process, its log file and how to reach it."""

    name: str
    popen: subprocess.Popen
    log: Path
    url: str = ""

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def tail(self, chars: int = 3000) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return f"--- {self.name} (pid {self.pid}) ---\n{text[-chars:]}"

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10.0) -> None:
        if self.alive():
            self.popen.send_signal(sig)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=timeout)


@dataclass
class Replicas:
    """N replicas of the app and nginx in front of them, on loopback unless told otherwise."""

    count: int = 2
    port: int = 0  # the proxy's port; 0: a free one
    listen_address: str = "127.0.0.1"
    first_replica_port: int = 0  # 0: free ports
    root: Path = ROOT
    pin: bool = True  # replica i on core i (mod the cores there are), if taskset exists
    nginx: str | None = field(default_factory=find_nginx)
    startup_timeout: float = 60.0
    extra_args: list[str] = field(default_factory=list)
    postgres: bool = False  # start a PostgreSQL cluster for Ask the room's rooms
    polls_url: str | None = None  # else: the rooms' database every replica is given
    replicas: list[Process] = field(default_factory=list)
    cluster: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)
    proxy: Process | None = None
    runtime: Path | None = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.listen_address in ("0.0.0.0", "") else self.listen_address
        return f"http://{host}:{self.port}"

    @property
    def pids(self) -> list[int]:
        return [r.pid for r in self.replicas]

    # ------------------------------------------------------------------------------ start

    def start(self) -> Replicas:
        if not self.nginx:
            raise StartError("no nginx on PATH (apt-get install -y nginx)")
        self.runtime = Path(tempfile.mkdtemp(prefix="specviz-replicas-"))
        os.chmod(self.runtime, 0o755)  # nginx's workers (user nobody) write its temp files
        secret = secrets.token_hex(32)  # one cookie secret for all: any replica takes any tab
        try:
            if self.postgres:
                self.polls_url = self.cluster.enter_context(postgres_cluster()) + "/postgres"
            for i in range(self.count):
                self.replicas.append(self._start_replica(i, secret))
            precompress(streamlit_static(), self.runtime / "static")  # while the replicas boot
            self._wait_healthy(self.replicas)
            self.proxy = self._start_nginx()
            self._wait_healthy([self.proxy])
        except BaseException:
            self.stop()
            raise
        return self

    def _replica_port(self, i: int) -> int:
        return self.first_replica_port + i if self.first_replica_port else free_port()

    def _start_replica(self, i: int, secret: str) -> Process:
        port = self._replica_port(i)
        command = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            *STREAMLIT_FLAGS,
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
            *self.extra_args,
        ]
        available = cores()
        if self.pin and shutil.which("taskset") and len(available) > 1:
            command = ["taskset", "-c", str(available[i % len(available)]), *command]
        env = dict(os.environ, STREAMLIT_SERVER_COOKIE_SECRET=secret, PYTHONUNBUFFERED="1")
        if self.polls_url:
            env["SPECVIZ_POLLS_URL"] = self.polls_url
        return self._spawn(f"replica {i}", command, env, f"http://127.0.0.1:{port}")

    def _start_nginx(self) -> Process:
        assert self.runtime is not None
        if not self.port:
            self.port = free_port()
        ports = [int(r.url.rsplit(":", 1)[1]) for r in self.replicas]
        listen = f"{self.listen_address}:{self.port}" if self.listen_address else str(self.port)
        conf = self.runtime / "nginx.conf"
        conf.write_text(nginx_config(listen, ports, self.runtime, self.runtime / "static"))
        command = [self.nginx, "-p", str(self.runtime), "-c", str(conf), "-e", "stderr"]
        return self._spawn("nginx", command, dict(os.environ), self.url)

    def _spawn(self, name: str, command: list[str], env: dict, url: str) -> Process:
        assert self.runtime is not None
        log = self.runtime / f"{name.replace(' ', '-')}.log"
        with open(log, "wb") as out:
            popen = subprocess.Popen(
                command,
                cwd=self.root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return Process(name, popen, log, url)

    def _wait_healthy(self, processes: list[Process]) -> None:
        deadline = time.monotonic() + self.startup_timeout
        waiting = list(processes)
        while waiting:
            for proc in list(waiting):
                if not proc.alive():
                    raise StartError(
                        f"{proc.name} exited with {proc.popen.returncode}\n" + proc.tail()
                    )
                if healthy(proc.url):
                    waiting.remove(proc)
            if waiting and time.monotonic() > deadline:
                raise StartError("not healthy in time:\n" + "\n".join(p.tail() for p in waiting))
            if waiting:
                time.sleep(0.1)

    # ----------------------------------------------------------------------- while it runs

    def kill(self, i: int, sig: int = signal.SIGKILL) -> None:
        """Kill replica ``i`` at once (a crash, not a shutdown)."""
        self.replicas[i].popen.send_signal(sig)
        self.replicas[i].popen.wait(timeout=10)

    def sessions(self, i: int) -> int:
        """Websocket sessions replica ``i`` holds (from its /_stcore/metrics)."""
        url = f"{self.replicas[i].url}/_stcore/metrics?families=active_sessions"
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                text = resp.read().decode()
        except (urllib.error.URLError, OSError):
            return 0
        for line in text.splitlines():
            if line.startswith("active_sessions"):
                return int(float(line.split()[-1]))
        return 0

    def logs(self) -> str:
        return "\n".join(p.tail() for p in [*self.replicas, *([self.proxy] if self.proxy else [])])

    # ------------------------------------------------------------------------------ stop

    def stop(self) -> None:
        """nginx first (no new connections), then every replica; each by its own PID."""
        if self.proxy is not None:
            self.proxy.stop(signal.SIGTERM)
            self.proxy = None
        for replica in self.replicas:
            replica.stop(signal.SIGTERM)
        self.replicas = []
        self.cluster.close()
        if self.runtime is not None:
            shutil.rmtree(self.runtime, ignore_errors=True)
            self.runtime = None

    def __enter__(self) -> Replicas:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replicas", type=int, default=len(cores()), help="default: one per core")
    ap.add_argument("--port", type=int, default=8500, help="where nginx listens")
    ap.add_argument("--listen", default="127.0.0.1", help="0.0.0.0 to serve the network")
    ap.add_argument("--first-replica-port", type=int, default=8501)
    ap.add_argument("--no-pin", action="store_true", help="do not pin replicas to cores")
    ap.add_argument("--postgres", action="store_true", help="PostgreSQL for the rooms, shared")
    ap.add_argument("--polls-url", help="the rooms' database of all replicas (SQLAlchemy URL)")
    args = ap.parse_args(argv)
    replicas = Replicas(
        count=args.replicas,
        port=args.port,
        listen_address=args.listen,
        first_replica_port=args.first_replica_port,
        pin=not args.no_pin,
        postgres=args.postgres,
        polls_url=args.polls_url,
    )
    stopping = False

    def _stop(signum, frame):  # SIGTERM behaves like Ctrl-C
        nonlocal stopping
        if not stopping:
            stopping = True
            raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    replicas.start()
    try:
        print(
            f"SpecViz on {replicas.url} ({replicas.count} replicas: "
            + ", ".join(f"{r.url} pid {r.pid}" for r in replicas.replicas)
            + f"; nginx pid {replicas.proxy.pid}"
            + (f"; rooms in {replicas.polls_url}" if replicas.polls_url else "")
            + "). Ctrl-C stops everything.",
            flush=True,
        )
        while all(r.alive() for r in replicas.replicas) and replicas.proxy.alive():
            time.sleep(1)
        print("a process exited:\n" + replicas.logs(), file=sys.stderr)
    except KeyboardInterrupt:
        pass
    finally:
        replicas.stop()
        print("stopped", flush=True)


if __name__ == "__main__":
    main()
