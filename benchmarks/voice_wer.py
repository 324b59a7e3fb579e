"""The word error rate of ``taor voice serve``'s recognizer (PocketSphinx, the US English model
its wheel carries) on sentences Debian's espeak-ng speaks, through the server's own pipeline:
the WAV read and resampled (``taor.voice.sources.read_wav``), cut into utterances by the voice
activity detector and decoded (``taor.voice.engine.Recognizer``).

    python benchmarks/voice_wer.py [--rate WORDS_PER_MINUTE]

Prints each sentence with what was heard, then a ``RESULT`` line. Needs the voice extra and
espeak-ng."""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from taor.voice.engine import Recognizer
from taor.voice.sources import read_wav

SENTENCES = (
    "hello world",
    "run the tests",
    "show me the files",
    "thank you very much",
    "please run the tests in the current folder",
    "open the readme file and fix the typo",
    "what is the weather like today",
    "add a new function that returns the sum of two numbers",
    "list the files in this directory",
    "write a short summary of the changes",
)


def errors(said: list[str], heard: list[str]) -> int:
    """Word-level edit distance (substitutions, insertions and deletions)."""
    row = list(range(len(heard) + 1))
    for i, word in enumerate(said, 1):
        diagonal, row[0] = row[0], i
        for j, other in enumerate(heard, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (word != other))
    return row[len(heard)]


def transcribe(path: Path) -> str:
    recognizer = Recognizer()
    audio = read_wav(path) + bytes(32000)  # and a second of silence after it
    heard = [*recognizer.feed(audio), *recognizer.finish()]
    finals = [u.text for u in heard if u.kind == "utterance_final"]
    return " ".join(text for text in finals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=int, default=130, help="espeak-ng's words per minute")
    rate = parser.parse_args().rate
    wrong = total = 0
    with tempfile.TemporaryDirectory() as folder:
        for n, sentence in enumerate(SENTENCES):
            path = Path(folder) / f"{n}.wav"
            speak = ["espeak-ng", "-v", "en-us", "-s", str(rate), "-w", str(path), sentence]
            subprocess.run(speak, check=True)
            text = transcribe(path)
            said = sentence.split()
            wrong += errors(said, text.split())
            total += len(said)
            print(f"{errors(said, text.split())}/{len(said)}  {sentence!r} -> {text!r}")
    print(
        f"RESULT voice_wer engine=pocketsphinx-en-us voice=espeak-ng-en-us rate={rate} "
        f"sentences={len(SENTENCES)} words={total} errors={wrong} wer={wrong / total:.1%}"
    )


if __name__ == "__main__":
    main()
