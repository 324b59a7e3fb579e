"""``@path`` in a prompt: which words are mentions, and the files attached through the
environment."""

from __future__ import annotations

from taor.agent.context.mentions import attach_mentions, mentioned
from taor.env.memory import MemoryEnvironment


def test_mentions_are_words_starting_with_at_without_trailing_punctuation() -> None:
    prompt = "fix @src/app.py, see (@notes.md) and @my\\ file.txt. Mail me@example.com @"
    assert mentioned(prompt) == ["src/app.py", "notes.md", "my file.txt"]
    assert mentioned("@a.py and @a.py") == ["a.py"]


async def test_named_files_are_appended_and_other_mentions_left_alone() -> None:
    env = MemoryEnvironment(files={"src/app.py": "a = 1\n", "src/b.py": "b = 2\n"})
    done = await attach_mentions("why is @src/app.py odd? it uses @property", env)
    assert done.files == ("src/app.py",) and done.problems == ()
    assert done.text.startswith("why is @src/app.py odd? it uses @property\n\n")
    assert done.text.endswith('<file path="src/app.py">\na = 1\n</file>')
    listed = await attach_mentions("what is in @src", env)
    assert '<file path="src">\napp.py\nb.py\n</file>' in listed.text


async def test_long_files_are_cut_and_binary_ones_reported() -> None:
    env = MemoryEnvironment(files={"big.txt": "x" * 50, "blob.bin": b"\x00\x01\x02"})
    done = await attach_mentions("@big.txt @blob.bin", env, max_chars=10)
    assert done.files == ("big.txt",)
    assert "x" * 10 + "\n[... 40 more characters not attached]" in done.text
    assert done.problems == ("@blob.bin: a binary file, not attached",)


async def test_a_prompt_without_mentions_is_unchanged() -> None:
    done = await attach_mentions("plain prompt", MemoryEnvironment())
    assert (done.text, done.files, done.problems) == ("plain prompt", (), ())
