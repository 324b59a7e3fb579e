"""taor's chat templates, rendered with Jinja2 set up as llama.cpp's minja renders them (blocks
trimmed, ``tojson`` as plain JSON): a conversation with tools, a call and its result comes out
in the model's own turn format, the calls as the fenced json blocks the model is told to write."""

import json
from importlib.resources import files
from typing import Any

import jinja2
import pytest

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": "Run a command",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "bash", "arguments": '{"command": "python hello.py"}'},
}
SYSTEM = "You are a coding agent.\n\n<environment>\nfiles: hello.py\n</environment>"


def render(template: str, messages: list[dict[str, Any]], **context: Any) -> str:
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False)
    env.filters["tojson"] = lambda value, indent=None: json.dumps(
        value, ensure_ascii=False, indent=indent
    )
    source = files("taor.llm.local").joinpath("templates", template).read_text()
    return env.from_string(source).render(messages=messages, **context)


def conversation() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Run hello.py"},
        {"role": "assistant", "content": "", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": "hello"},
        {"role": "tool", "tool_call_id": "call_2", "content": "(exit 0)"},
        {"role": "assistant", "content": "It printed hello."},
        {"role": "user", "content": "Thanks"},
    ]


def test_gemma3_renders_turns_tools_calls_and_results() -> None:
    text = render(
        "gemma3.jinja",
        conversation(),
        tools=TOOLS,
        add_generation_prompt=True,
        bos_token="<bos>",
    )
    tools_json = json.dumps(TOOLS[0])
    assert text == (
        "<bos><start_of_turn>user\n"
        "You are a coding agent.\n\n"
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n"
        f"<tools>\n{tools_json}\n</tools>\n\n"
        "To call a function, reply with a json object with the function name and its arguments"
        ' in a fenced json block:\n```json\n{"name": <function-name>, "arguments": '
        "<args-json-object>}\n```\n\n"
        "<environment>\nfiles: hello.py\n</environment>\n\n"
        "Run hello.py<end_of_turn>\n"
        "<start_of_turn>model\n"
        '```json\n{"name": "bash", "arguments": {"command": "python hello.py"}}\n```'
        "<end_of_turn>\n"
        "<start_of_turn>user\n<tool_response>\nhello\n</tool_response>\n"
        "<tool_response>\n(exit 0)\n</tool_response><end_of_turn>\n"
        "<start_of_turn>model\nIt printed hello.<end_of_turn>\n"
        "<start_of_turn>user\nThanks<end_of_turn>\n"
        "<start_of_turn>model\n"
    )


def test_gemma3_shares_the_prompt_before_the_environment_across_runs() -> None:
    first, second = conversation(), conversation()
    second[0] = {"role": "system", "content": SYSTEM.replace("hello.py", "other.py")}
    second[1] = {"role": "user", "content": "Something else"}
    a, b = (render("gemma3.jinja", c, tools=TOOLS, bos_token="<bos>") for c in (first, second))
    shared = a[: a.index("<environment>")]
    assert b.startswith(shared) and "</tools>" in shared


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": "user", "content": "hi"}],
        [{"role": "system", "content": "Be brief."}, {"role": "assistant", "content": "Hello."}],
    ],
)
def test_gemma3_without_tools_or_a_first_user_turn(messages: list[dict[str, Any]]) -> None:
    text = render("gemma3.jinja", messages, add_generation_prompt=False, bos_token="<bos>")
    if messages[0]["role"] == "user":
        assert text == "<bos><start_of_turn>user\nhi<end_of_turn>\n"
    else:  # the system prompt still reaches the model, in a user turn of its own
        assert text == (
            "<bos><start_of_turn>user\nBe brief.<end_of_turn>\n"
            "<start_of_turn>model\nHello.<end_of_turn>\n"
        )


def test_a_call_with_text_and_object_arguments_renders_both() -> None:
    call = {"function": {"name": "read_file", "arguments": {"path": "a.py"}}}
    messages = [
        {"role": "user", "content": "read a.py"},
        {"role": "assistant", "content": "Reading it.", "tool_calls": [call, CALL]},
    ]
    text = render("gemma3.jinja", messages, bos_token="")
    assert text.endswith(
        "<start_of_turn>model\nReading it.\n"
        '```json\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```\n'
        '```json\n{"name": "bash", "arguments": {"command": "python hello.py"}}\n```'
        "<end_of_turn>\n"
    )
