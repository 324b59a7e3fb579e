"""Where the audio comes from, each as 16 kHz mono 16-bit chunks of about 0.1 s: a WAV file
(resampled and mixed down as needed; at the pace it would play, or faster), the microphone
(``sounddevice``), or what this machine plays (PulseAudio's or PipeWire's monitor of the default
output, through ``parec``). What cannot be had is a ``VoiceError`` that says why."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import wave
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from taor.errors import TaorError
from taor.voice.engine import RATE

CHUNK = RATE // 10  # samples: 0.1 s


class VoiceError(TaorError):
    """Audio that cannot be had: no such file, no microphone, no monitor source."""


def open_source(source: str, *, speed: float = 1.0) -> tuple[str, AsyncIterator[bytes]]:
    """What ``source`` names (``microphone``, ``loopback`` or a WAV file's path) and its audio;
    ``speed``: a file's pace (1 as it plays, 0 as fast as it can be read)."""
    if source == "microphone":
        return f"the microphone ({input_device()})", microphone()
    if source == "loopback":
        monitor = monitor_source()
        return f"what this machine plays ({monitor})", loopback(monitor)
    path = Path(source).expanduser()
    if not path.is_file():
        raise VoiceError(f"{source!r} is not microphone, loopback or a WAV file that exists")
    return str(path), wav_file(read_wav(path), speed=speed)


def read_wav(path: Path) -> bytes:
    """The file's audio as 16 kHz mono 16-bit samples."""
    import numpy as np

    try:
        with wave.open(str(path)) as audio:
            rate, channels, width = audio.getframerate(), audio.getnchannels(), audio.getsampwidth()
            raw = audio.readframes(audio.getnframes())
    except (wave.Error, EOFError) as error:
        raise VoiceError(f"{path}: not a PCM WAV file ({error})") from None
    if width not in (1, 2, 4):
        raise VoiceError(f"{path}: {8 * width}-bit samples; use 8, 16 or 32-bit PCM")
    kind = {1: np.uint8, 2: np.int16, 4: np.int32}[width]
    samples: Any = np.frombuffer(raw, dtype=kind).astype(np.float32)
    if width == 1:
        samples = (samples - 128) * 256
    elif width == 4:
        samples = samples / 65536
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1)
    if rate != RATE:
        import soxr

        samples = soxr.resample(samples, rate, RATE)
    return bytes(np.clip(samples, -32768, 32767).astype(np.int16).tobytes())


async def wav_file(audio: bytes, *, speed: float) -> AsyncIterator[bytes]:
    step = 2 * CHUNK
    for start in range(0, len(audio), step):
        yield audio[start : start + step]
        await asyncio.sleep(0.1 / speed if speed > 0 else 0)
    yield bytes(2 * RATE)  # a second of silence: the last utterance ends


def input_device() -> str:
    """The name of the default input device."""
    try:
        import sounddevice as sd  # PortAudio, loaded now
    except (ImportError, OSError) as error:
        raise VoiceError(f"the microphone needs sounddevice and PortAudio: {error}") from None
    try:
        return str(sd.query_devices(kind="input")["name"])
    except (sd.PortAudioError, ValueError) as error:
        raise VoiceError(f"no microphone: {error}") from None


async def microphone() -> AsyncIterator[bytes]:
    import sounddevice as sd

    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[bytes] = asyncio.Queue()

    def heard(data: Any, frames: int, time: Any, status: Any) -> None:
        loop.call_soon_threadsafe(chunks.put_nowait, bytes(data))

    stream = sd.RawInputStream(
        samplerate=RATE, channels=1, dtype="int16", blocksize=CHUNK, callback=heard
    )
    with stream:
        while True:
            yield await chunks.get()


def monitor_source() -> str:
    """The monitor of the default output (PulseAudio, or PipeWire's pulse server)."""
    if not (shutil.which("pactl") and shutil.which("parec")):
        raise VoiceError("loopback needs PulseAudio or PipeWire (pactl and parec): not found")
    sink = _pactl("get-default-sink")
    sources = _pactl("list", "short", "sources")
    monitor = f"{sink}.monitor"
    if not sink or monitor not in sources.split():
        raise VoiceError("loopback: the sound server has no monitor of its default output")
    return monitor


def _pactl(*args: str) -> str:
    try:
        done = subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise VoiceError(f"loopback: pactl failed: {error}") from None
    if done.returncode != 0:
        why = done.stderr.strip() or f"exit {done.returncode}"
        raise VoiceError(f"loopback: no sound server to record from ({why})")
    return done.stdout.strip()


async def loopback(monitor: str) -> AsyncIterator[bytes]:
    process = await asyncio.create_subprocess_exec(
        *("parec", "-d", monitor, "--format=s16le", f"--rate={RATE}", "--channels=1"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    try:
        while chunk := await process.stdout.read(2 * CHUNK):
            yield chunk
        raise VoiceError(f"loopback: parec stopped (exit {await process.wait()})")
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
