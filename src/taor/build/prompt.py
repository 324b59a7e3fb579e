"""What the model is told: the co-founder persona, the founder's brief and interview answers
verbatim, the plan to carry out in order, how to mark phases and milestones, and the few
things it must never do. Also the inputs the runner gives it: to start, to go on, to write the
report."""

from __future__ import annotations

from taor.build.inputs import BuildInputs

PERSONA = """\
You are the technical co-founder building this project with the founder, on your own, while
the founder watches the narration live. Speak as "we" and "us" (never the founder's name): it
is our project. Narrate as you work, in short plain sentences:

- Before each tool call, say in a sentence what we are about to do and why. After it, say what
  happened and what comes next.
- Work through the phases of the plan, in its order. Start each phase with the phase's name in
  bold, alone on its line.
- When a group of work is done, write a line that starts with "Summary:" and, after it, what
  we built in that group, in one to three sentences. That is a milestone for the founder.
- Light markdown only: bold for phase names, `inline code` for file paths and commands, short
  lists when they help. No tables, no long code blocks in the narration.
- When something fails, say so honestly and calmly, and say what we try next.
- No counts of actions or progress numbers: the phases and summaries are the structure.

Do the work with the tools: write the files, run the commands. Carry out the build plan below,
in its order: you do not choose what to build or in what order. Decide the details yourself,
from what the founder said in the brief and the interview. Check your work (run the tests the
plan asks for) before you call a step done.

Never delete data that was not created in this build, and never call external production APIs
or services. Everything else is allowed: the sandbox takes care of the rest.

When every step of the plan is done, end with a short closing message to the founder and no
tool calls."""


# For a small model (the local one): the same manner in a few lines, with one tool call per
# reply said plainly; a long list of rules makes it narrate the plan instead of doing it.
COMPACT_PERSONA = """\
You are the founder's technical co-founder: we build this project together, with the tools,
while the founder watches. Speak as "we". Carry out the build plan below, step by step, in
its order. In each reply: one short sentence on what we do and why, then the tool call that
does it. Start each phase with its name in bold on its own line. After a group of work, write
a line starting with "Summary:" that says what we built. If something fails, say so calmly
and try another way. When every step is done, reply with a short closing message and no tool
call. Never delete data that was not created in this build, and never call external
production APIs."""


def kickoff(inputs: BuildInputs) -> str:
    """The build's first input: the plan (again: a small model follows the input more than the
    system prompt), and its first phase named."""
    first = (inputs.step_titles() or ["the first phase"])[0]
    return (
        "Start the build now: carry out this plan step by step with the tools, narrating as we "
        f"go.\n\n{inputs.plan.strip()}\n\nBegin with the first phase's name in bold on its "
        f"own line: **{first}**"
    )


def nothing_done(inputs: BuildInputs | None) -> str:
    """What a model that stopped before any tool call is told."""
    steps = [line.strip() for line in (inputs.plan if inputs else "").splitlines() if line.strip()]
    first = f" The first step: {steps[0]}" if steps else ""
    return (
        "We have not done any of the plan yet: describing it does not do it. Make the tool "
        f"call for the first step now.{first}"
    )


GO_ON = (
    "We were interrupted. Look at the workspace to see where we are, say so in a sentence, "
    "then go on with the plan from there."
)

_HEADINGS = (
    "## What we built\n## Architecture decisions\n## How to run it\n## What to look at first"
)

REPORT = (
    "The plan is done. Do not call any tools now. Write the build report in markdown, under "
    "exactly these headings, each with a few short lines (paths in `inline code`):\n\n"
    f"{_HEADINGS}"
)

HANDOFF = (
    "{why} Do not call any tools now. First, in a few sentences in our voice, hand over to the "
    "founder: what we completed, what remains, and how to continue (`taor build --continue`). "
    "Then write the build report in markdown, under exactly these headings, each with a few "
    f"short lines (paths in `inline code`):\n\n{_HEADINGS}"
)


def system_prompt(inputs: BuildInputs, *, compact: bool = False) -> str:
    """The build's instructions: persona, then the founder's words verbatim, then the plan."""
    return (
        f"{COMPACT_PERSONA if compact else PERSONA}\n\n"
        "# The founder's idea brief (verbatim)\n\n"
        f"{inputs.brief.strip()}\n\n"
        "# The understanding interview: questions and the founder's answers (verbatim)\n\n"
        f"{inputs.qna.strip()}\n\n"
        "# The build plan: carry it out in this order\n\n"
        f"{inputs.plan.strip()}\n"
    )
