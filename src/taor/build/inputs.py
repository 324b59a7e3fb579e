"""The three inputs of a build: the founder's idea brief, the answers of the understanding
interview, and the build plan; read from files and checked before any model is called. A
missing or empty file, a plan with no steps, or inputs too big for the model's context leave
a ``ConfigurationError`` with one line that says which and what to do."""

from __future__ import annotations

import re
from pathlib import Path

from taor._records import frozen
from taor.errors import ConfigurationError

# A step: a numbered or bulleted line, a checkbox, or a heading that names a step or phase.
_STEP = re.compile(
    r"^\s*(?:\d+[.)]\s+\S|[-*+]\s+(?:\[[ xX]\]\s+)?\S|#{1,4}\s+(?:step|phase|stage)\b)",
    re.IGNORECASE | re.MULTILINE,
)
BUDGET_SHARE = 0.5  # of the context window the inputs may take: the rest is for the work
_CHARS_PER_TOKEN = 4  # a rough estimate, as the context ledger's first guess


@frozen
class BuildInputs:
    brief: str
    qna: str
    plan: str

    def steps(self) -> int:
        return len(_STEP.findall(self.plan))

    def step_titles(self) -> list[str]:
        """Each step's title: its line without the numbering, up to a colon (60 characters)."""
        titles = []
        for line in self.plan.splitlines():
            if _STEP.match(line):
                text = re.sub(r"^\s*(?:\d+[.)]|[-*+](?:\s+\[[ xX]\])?|#{1,4})\s*", "", line)
                titles.append(text.split(":", 1)[0].strip(" *_`")[:60])
        return titles

    def tokens(self) -> int:
        """An estimate of the tokens the three take in the prompt."""
        return (len(self.brief) + len(self.qna) + len(self.plan)) // _CHARS_PER_TOKEN


def read_inputs(brief: str | Path, qna: str | Path, plan: str | Path) -> BuildInputs:
    """The three files' texts, each checked (``--brief``, ``--qna``, ``--plan``)."""
    inputs = BuildInputs(
        brief=_read("--brief", Path(brief)),
        qna=_read("--qna", Path(qna)),
        plan=_read("--plan", Path(plan)),
    )
    check(inputs)
    return inputs


def check(inputs: BuildInputs, *, where: str = "the plan") -> None:
    """A plan must have steps; texts must not be blank (for texts given directly)."""
    for name, text in (("brief", inputs.brief), ("interview", inputs.qna), ("plan", inputs.plan)):
        if not text.strip():
            raise ConfigurationError(f"the {name} is empty: write it first")
    if not inputs.steps():
        raise ConfigurationError(
            f"{where} has no steps: list them one per line, numbered (1. ...) or as bullets (- ...)"
        )


def check_budget(inputs: BuildInputs, context_window: int, model: str) -> None:
    """The inputs must leave room for the work: at most half the model's context window."""
    budget = int(context_window * BUDGET_SHARE)
    tokens = inputs.tokens()
    if context_window and tokens > budget:
        raise ConfigurationError(
            f"the brief, interview and plan are about {tokens:,} tokens, over the {budget:,} a "
            f"build may give them with {model} (half of its {context_window:,}-token context "
            "window): shorten them, or use a model with a larger window"
        )


def _read(flag: str, path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise ConfigurationError(f"{flag} {path}: no such file") from None
    except IsADirectoryError:
        raise ConfigurationError(f"{flag} {path}: a folder, not a file") from None
    except OSError as error:
        raise ConfigurationError(f"{flag} {path}: {error.strerror}") from None
    if not text.strip():
        raise ConfigurationError(f"{flag} {path}: the file is empty")
    return text
