"""The child process that runs llama.cpp's server:
``python -m taor.llm.local.serve SETTINGS LOG``.

``SETTINGS`` is the JSON of ``ServerSettings``; ``LOG`` the file its standard error goes to.
The child prints one line, ``{"address": "http://127.0.0.1:PORT"}``, once the model is loaded
and the server listens, and runs until its standard input closes: the parent closes it to stop
the server, and the kernel closes it when the parent dies however it dies (SIGKILL included),
so no server outlives taor.
Its standard error is llama.cpp's log, which it removes as it goes (a failed start keeps it for
the parent to quote).

The server answers only requests that carry the API key the parent made for it (in
``TAOR_LOCAL_SERVER_KEY``, not on the command line, which every local user can read): another
user on the machine can reach the port but neither read the conversation nor save the slot to
a file. ``/health`` stays open (llama.cpp's choice). The slot listing (``GET /slots``, which
shows the prompt) is off; saving and restoring slots, for the saved prompt prefix, works only
in the prefix directory (0700), and only with the key.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from typing import Any

from taor._private import private_dir

KEY_VAR = "TAOR_LOCAL_SERVER_KEY"


def main(argv: list[str]) -> int:
    settings = json.loads(argv[0])
    settings["api_key"] = os.environ.pop(KEY_VAR, "")
    threading.Thread(target=_exit_when_parent_goes, args=(argv[1],), daemon=True).start()
    import xllamacpp

    try:
        server = xllamacpp.Server(_params(xllamacpp, settings))
    except Exception as error:  # llama.cpp logged why; the parent quotes the log
        print(f"taor serve: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
        os._exit(1)  # not sys.exit: the watcher thread holds stdin
    print(json.dumps({"address": server.listening_address}), flush=True)
    threading.Event().wait()  # the watcher ends the process
    return 0


def _exit_when_parent_goes(log: str) -> None:
    while sys.stdin.buffer.read(4096):
        pass
    with contextlib.suppress(OSError):
        os.unlink(log)  # a parent killed by SIGKILL could not
    os._exit(0)  # at once: llama.cpp's threads would only delay a normal exit


def _params(xllamacpp: Any, settings: dict[str, Any]) -> Any:
    params = xllamacpp.CommonParams()
    params.model.path = settings["model_path"]
    params.n_ctx = settings["context_size"]
    params.n_parallel = 1  # one conversation at a time: the whole context for it
    for cpu in (params.cpuparams, params.cpuparams_batch):
        cpu.n_threads = settings["threads"]
        cpu.poll = 0  # sleep instead of spinning between tasks (a spinning server starves tools)
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, read back from listening_address
    params.ui = False
    if settings.get("api_key"):
        params.api_keys = [settings["api_key"]]
    params.endpoint_slots = False  # GET /slots shows each slot's prompt
    params.endpoint_props = params.endpoint_metrics = False
    params.use_jinja = True
    # Weights as stored, not repacked for the CPU's wide instructions: measured on 2 AVX2
    # cores, the server is up about 1 s sooner and reads prompts about 30% faster, and it
    # generates at much the same speed.
    params.no_extra_bufts = True
    params.cache_ram_mib = settings["cache_ram_mib"]
    params.sampling.temp = settings["temperature"]  # for requests that set none
    if settings.get("prefix_dir"):  # the saved prompt prefix (prefix.py) is read and written here
        private_dir(settings["prefix_dir"])  # only its owner reads the saved conversation
        params.slot_save_path = os.path.join(
            settings["prefix_dir"], ""
        )  # llama.cpp appends the name
    if settings.get("chat_template_file"):
        with open(settings["chat_template_file"], encoding="utf-8") as file:
            params.chat_template = file.read()
    return params


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
