"""Speech to text with PocketSphinx and the US English model its wheel carries (nothing is
downloaded): 16 kHz mono 16-bit audio in, utterances out. Its voice activity detector cuts
the audio into utterances; each one's hypothesis so far is a partial, its last is the final."""

from __future__ import annotations

from typing import Any, Literal

from taor._records import frozen

RATE = 16000  # samples a second, what the model was trained on


@frozen
class Utterance:
    kind: Literal["utterance_partial", "utterance_final"]
    text: str

    def as_json(self) -> dict[str, str]:
        return {"type": self.kind, "text": self.text}


class Recognizer:
    """``feed`` it audio (any length); it returns the partial and final utterances it made."""

    def __init__(self) -> None:
        from pocketsphinx import Decoder, Endpointer

        self._endpointer: Any = Endpointer(sample_rate=RATE)
        self._decoder: Any = Decoder(samprate=RATE, logfn="/dev/null")
        self._pending = b""
        self._partial = ""

    def feed(self, audio: bytes) -> list[Utterance]:
        self._pending += audio
        size = self._endpointer.frame_bytes
        made: list[Utterance] = []
        while len(self._pending) >= size:
            frame, self._pending = self._pending[:size], self._pending[size:]
            made += self._frame(frame)
        return made

    def finish(self) -> list[Utterance]:
        """The end of the audio: the utterance in progress, if any, is final."""
        if not self._endpointer.in_speech:
            return []
        speech = self._endpointer.end_stream(self._pending)
        self._pending = b""
        if speech:
            self._decoder.process_raw(speech)
        return self._final()

    def _frame(self, frame: bytes) -> list[Utterance]:
        was_speaking = self._endpointer.in_speech
        speech = self._endpointer.process(frame)
        if speech is None:
            return []
        if not was_speaking:
            self._decoder.start_utt()
            self._partial = ""
        self._decoder.process_raw(speech)
        if not self._endpointer.in_speech:
            return self._final()
        hypothesis = self._decoder.hyp()
        text = hypothesis.hypstr if hypothesis is not None else ""
        if text and text != self._partial:
            self._partial = text
            return [Utterance(kind="utterance_partial", text=text)]
        return []

    def _final(self) -> list[Utterance]:
        self._decoder.end_utt()
        hypothesis = self._decoder.hyp()
        text = hypothesis.hypstr.strip() if hypothesis is not None else ""
        self._partial = ""
        return [Utterance(kind="utterance_final", text=text)] if text else []
