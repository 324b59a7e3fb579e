"""Start-up time of the ``taor`` command, for every provider, next to bare python and bare-SDK
scripts.

    python benchmarks/startup.py                          # 11 runs of each, medians
    python benchmarks/startup.py --runs 21                # steadier figures on a busy machine
    python benchmarks/startup.py --providers anthropic    # one provider (comma-separated list)

Wall time, median of ``--runs`` processes each (run in turns, so a burst of load on the machine
hits every command alike), after one warm-up run of each:

- ``python -c pass``, ``taor --version`` and ``taor --help`` (process start to exit);
- for each provider (``anthropic``, ``openai`` Responses, ``gemini``, ``openai-compat``),
  process start to the first request byte reaching a ``FakeProviderServer`` (in this process,
  which stamps each request line with ``time.time_ns()`` on arrival, taken against the same
  clock just before the process starts) for ``taor -p hi --model PROVIDER:MODEL --base-url
  URL`` and for a bare-SDK script (``_sdk_first_request.py``: the provider's official SDK, one
  streamed request) sending the very request taor sent (its model, messages, tools and options,
  recorded on the warm-up run).

``local`` is not measured: its first request waits for a llama.cpp server to load a model
(seconds, and an installed model); what taor does before it is the ``openai-compat`` path.

The child processes keep their bytecode in a temporary ``PYTHONPYCACHEPREFIX`` (also when
``PYTHONDONTWRITEBYTECODE`` is set), as an installed package has its ``.pyc`` files: compiling
taor's sources on every start is not what users pay. ``--no-bytecode-cache`` measures with the
environment as it is.

It ends with ``RESULT`` lines: ``python_ms`` (bare ``python -c pass``),
``version_ms_over_python`` and ``help_ms_over_python`` (target 150), per provider
``first_request_ms_<provider>`` (target: ``python -c pass`` + 400 ms) and
``first_request_vs_sdk_<provider>`` (taor's time to the first request over the bare SDK
script's, paired per round; target 1.5), and, for openai-compat, the earlier lines
``first_request_ms`` (target 400) and ``first_request_vs_sdk``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from taor.testing import FakeProviderServer, Reply

HERE = Path(__file__).resolve().parent
PY = sys.executable
TAOR = str(Path(PY).parent / "taor")
SDK_SCRIPT = str(HERE / "_sdk_first_request.py")
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
# provider -> (model, the key variable taor reads; a fake key, never sent beyond loopback)
PROVIDERS = {
    "anthropic": ("claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
    "openai": ("gpt-4.1", "OPENAI_API_KEY"),
    "gemini": ("gemini-2.5-flash", "GEMINI_API_KEY"),
    "openai-compat": ("m", None),
}
OVER_PYTHON_TARGET_MS = 400


def child_env(scratch: Path, cache_bytecode: bool) -> dict[str, str]:
    """No provider key, sessions in ``scratch``, bytecode cached there unless told otherwise."""
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env["XDG_DATA_HOME"] = str(scratch / "data")
    if cache_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    return env


def wall_ms(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    """Process start to exit."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, timeout=120)
    elapsed = (time.perf_counter() - t0) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr.decode()[-2000:]}")
    return elapsed


def first_request_ms(
    cmd: list[str], server: FakeProviderServer, env: dict[str, str], cwd: Path
) -> float:
    """Process start to the arrival of its first request line at ``server``."""
    seen = len(server.requests)
    started = time.time_ns()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, timeout=120)
    if done.returncode != 0 or len(server.requests) <= seen:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr.decode()[-2000:]}")
    return (server.requests[seen].received_ns - started) / 1e6


def children_cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


class Command:
    """A command line, the environment it runs in, and whether it is timed to its first request."""

    def __init__(self, argv: list[str], env: dict[str, str], *, first_request: bool) -> None:
        self.argv, self.env, self.first_request = argv, env, first_request

    def run(self, server: FakeProviderServer, cwd: Path) -> float:
        if self.first_request:
            return first_request_ms(self.argv, server, self.env, cwd)
        return wall_ms(self.argv, self.env, cwd)

    def run_with_cpu(self, server: FakeProviderServer, cwd: Path) -> tuple[float, float]:
        """The wall time, and the CPU time of the whole process (user + system, start to
        exit): a busy machine stretches the first, hardly the second."""
        before = children_cpu_ms()
        ms = self.run(server, cwd)
        return ms, children_cpu_ms() - before


def taor_command(provider: str, url: str, env: dict[str, str]) -> Command:
    model, key_var = PROVIDERS[provider]
    argv = [TAOR, "-p", "hi", "--model", f"{provider}:{model}", "--base-url", url]
    child = {**env, key_var: "fake-key"} if key_var else env
    return Command([*argv, "--output-format", "json"], child, first_request=True)


def recorded_body(server: FakeProviderServer, provider: str) -> dict[str, object]:
    """The body of the server's last request, with the model from the path for Gemini."""
    request = server.requests[-1]
    body = dict(request.json)
    if provider == "gemini":
        body["model"] = request.path.split("/models/", 1)[1].split(":", 1)[0]
    return body


def commands(
    providers: list[str], server: FakeProviderServer, env: dict[str, str], scratch: Path
) -> dict[str, Command]:
    """Every command, the taor ones run once to record the request the SDK scripts send."""
    cmds = {
        "python -c pass": Command([PY, "-c", "pass"], env, first_request=False),
        "taor --version": Command([TAOR, "--version"], env, first_request=False),
        "taor --help": Command([TAOR, "--help"], env, first_request=False),
    }
    for provider in providers:
        url = server.base_url(provider)
        taor = taor_command(provider, url, env)
        taor.run(server, scratch / "work")  # warm-up, and the request to replay
        body_file = scratch / f"request-{provider}.json"
        body_file.write_text(json.dumps(recorded_body(server, provider)))
        sdk = [PY, SDK_SCRIPT, provider, url, str(body_file)]
        cmds[f"taor -p {provider}"] = taor
        cmds[f"bare SDK {provider}"] = Command(sdk, env, first_request=True)
    return cmds


Times = dict[str, list[float]]


def measure(runs: int, cache_bytecode: bool, providers: list[str]) -> tuple[Times, Times]:
    """Wall times (to the first request, or to exit) and whole-process CPU times, per command."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeProviderServer(default=Reply(text="done")) as server,
    ):
        scratch = Path(tmp)
        (scratch / "work").mkdir()
        env = child_env(scratch, cache_bytecode)
        cmds = commands(providers, server, env, scratch)
        times: Times = {name: [] for name in cmds}
        cpu: Times = {name: [] for name in cmds}
        for run in range(runs + 1):  # run 0 warms up
            for name, cmd in cmds.items():
                ms, cpu_ms = cmd.run_with_cpu(server, scratch / "work")
                if run:
                    times[name].append(ms)
                    cpu[name].append(cpu_ms)
            print(f"[startup] round {run}/{runs} done", file=sys.stderr, flush=True)
        return times, cpu


def paired_ratio(times: dict[str, list[float]], provider: str) -> float:
    """taor over the SDK script of the same round (they ran one after the other): a burst of
    load on the machine then moves both, which the ratio of the two medians would not see."""
    rounds = zip(times[f"taor -p {provider}"], times[f"bare SDK {provider}"], strict=True)
    return statistics.median(t / s for t, s in rounds)


def report(times: Times, cpu: Times, runs: int, providers: list[str]) -> None:
    med = {name: statistics.median(ms) for name, ms in times.items()}
    print(f"\nms, {runs} runs each: wall time to the first request (-p, SDK) or to exit, median")
    print("(min-max); CPU time of the whole process, start to exit, median")
    for name, ms in times.items():
        spread = f"({min(ms):.1f}-{max(ms):.1f})"
        print(
            f"  {name:<26}{med[name]:>8.1f}   {spread:<20} cpu {statistics.median(cpu[name]):>7.1f}"
        )
    python = med["python -c pass"]
    target = python + OVER_PYTHON_TARGET_MS
    ratios = {p: paired_ratio(times, p) for p in providers}
    for provider, ratio in ratios.items():
        print(f"  taor -p {provider} / bare SDK, median of the runs' ratios: {ratio:.2f}")
    print()
    print(f"RESULT python_ms={python:.1f}")
    print(f"RESULT version_ms_over_python={med['taor --version'] - python:.1f} target=150")
    print(f"RESULT help_ms_over_python={med['taor --help'] - python:.1f} target=150")
    for provider in providers:
        name = provider.replace("-", "_")
        print(
            f"RESULT first_request_ms_{name}={med[f'taor -p {provider}']:.1f} target={target:.1f}"
        )
        print(f"RESULT first_request_vs_sdk_{name}={ratios[provider]:.2f} target=1.5")
    if "openai-compat" in providers:
        print(f"RESULT first_request_ms={med['taor -p openai-compat']:.1f} target=400")
        print(f"RESULT first_request_vs_sdk={ratios['openai-compat']:.2f} target=1.5")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=11, help="measured runs of each command")
    ap.add_argument(
        "--providers",
        default=",".join(PROVIDERS),
        help=f"comma-separated providers to measure (default: all of {', '.join(PROVIDERS)})",
    )
    ap.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="keep PYTHONDONTWRITEBYTECODE as the environment has it (compile on every start)",
    )
    a = ap.parse_args()
    providers = [p.strip() for p in a.providers.split(",") if p.strip()]
    unknown = [p for p in providers if p not in PROVIDERS]
    if unknown or not providers:
        ap.error(f"unknown provider(s) {', '.join(unknown)}; known: {', '.join(PROVIDERS)}")
    cached = not a.no_bytecode_cache
    print(f"[startup] python {sys.version.split()[0]}, bytecode cached: {cached}", flush=True)
    times, cpu = measure(a.runs, cached, providers)
    report(times, cpu, a.runs, providers)


if __name__ == "__main__":
    main()
