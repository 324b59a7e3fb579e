"""The autonomous build runner: from a founder's idea brief, interview answers and build plan
to a built project, narrated as a co-founder would, over ``taor.agent.Session``.

- ``inputs``: the three texts, read and checked before any model call;
- ``prompt``: the persona, the founder's words verbatim, the plan; the runner's inputs;
- ``narration``: the model's streamed text as sentence-sized narration, phases and milestones;
- ``events``: those events (``narration``, ``phase``, ``section_summary``, ``build_report``);
- ``runner``: ``BuildRun``, the build's course and its ends (report, handoff at the cap or
  after a repetition), with ``build_config`` and ``build_hooks`` for its session;
- ``report``: ``BUILD_REPORT.md``; ``state``: what a build keeps to be continued.
"""

from taor.build.events import (
    BUILD_EVENT_TYPES,
    BuildEvent,
    BuildReportReady,
    BuildStreamEvent,
    Narration,
    Phase,
    SectionSummary,
)
from taor.build.inputs import BuildInputs, read_inputs
from taor.build.runner import BuildRun, ReportGuard, build_config, build_hooks

__all__ = [
    "BUILD_EVENT_TYPES",
    "BuildEvent",
    "BuildInputs",
    "BuildReportReady",
    "BuildRun",
    "BuildStreamEvent",
    "Narration",
    "Phase",
    "ReportGuard",
    "SectionSummary",
    "build_config",
    "build_hooks",
    "read_inputs",
]
