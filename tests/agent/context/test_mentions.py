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


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40


async def test_an_image_is_attached_as_an_image_part() -> None:
    env = MemoryEnvironment(files={"shot.png": PNG, "app.py": "a = 1\n"})
    done = await attach_mentions("what is wrong in @shot.png with @app.py", env)
    assert done.problems == () and done.files == ("app.py",) and done.image_files == ("shot.png",)
    (image,) = done.images
    assert image.data == PNG and image.media_type == "image/png"
    assert "Attached images (named with @): shot.png" in done.text


async def test_an_image_too_big_or_for_a_model_without_images_is_refused_with_a_reason() -> None:
    env = MemoryEnvironment(files={"shot.png": PNG, "huge.png": PNG + bytes(6 * 2**20)})
    big = await attach_mentions("@huge.png", env)
    assert big.images == () and big.text == "@huge.png"
    assert big.problems == (
        "@huge.png: an image of 6.0 MB, over the 5 MB limit; attach a smaller copy "
        "(e.g. `convert -resize 50%`)",
    )
    blind = await attach_mentions("@shot.png", env, images=False)
    assert blind.images == ()
    assert blind.problems == (
        "@shot.png: an image, and this model does not take images; not attached",
    )
