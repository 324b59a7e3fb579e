"""Real speech for the voice tests: Debian's espeak-ng says a sentence into a WAV file (at
22050 Hz, which the server resamples). PocketSphinx hears espeak's voice poorly; this sentence
it hears as "what is the weather like that to", the same every time."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SENTENCE = "what is the weather like today"
HEARD = "what is the weather"  # how the transcript starts


def spoken(folder: Path, sentence: str = SENTENCE, name: str = "said.wav") -> Path:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    path = folder / name
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "130", "-w", str(path), sentence], check=True)
    return path
