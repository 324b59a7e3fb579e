"""``ServiceConfig``: the settings of one running service."""

from __future__ import annotations

from pathlib import Path

from taor._records import frozen

DEFAULT_MAX_BODY = 1 << 20  # 1 MiB: prompts and steering, not uploads


@frozen
class ServiceConfig:
    data_dir: Path
    database_url: str = ""  # "" is SQLite in data_dir
    max_body: int = DEFAULT_MAX_BODY
    cors_origins: tuple[str, ...] = ()  # none: CORS stays off
    default_model: str = "local"  # for a run that names none
    base_url: str = ""  # where the service reaches its models ("": each provider's own)
    workers: int = 2  # runs carried out at once
    sandbox: bool = True  # runs in bubblewrap when it is installed
    max_runs_per_user: int = 100  # a user's live runs (queued, running, awaiting) at most
    max_queue: int = 1000  # queued runs of every user at most
    templates_dir: Path | None = None  # workspace templates' folders (None: data_dir/templates)
    host_allowlist: tuple[Path, ...] = ()  # host folders runs may work in (or clone from)
    git_timeout: float = 300.0  # seconds a workspace's git clone may take
    heartbeat: float = 15.0  # seconds between keep-alive comments on an idle event stream
    # Across machines (``taor.server.spread``): runs, events and commands on Redis Streams.
    redis_url: str = ""  # "": this process carries out its runs itself
    worker_timeout: float = 30.0  # seconds without a heartbeat before a worker's runs move
    stream_retention: float = 3600.0  # seconds a finished run's event stream is kept in Redis

    def database(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'taor.db'}"

    def templates(self) -> Path:
        return self.templates_dir or self.data_dir / "templates"
