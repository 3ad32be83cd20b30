# iari's driver for openai-python: the CLIENT operations a Python user makes, run in the
# interpreter `iari test --python PATH` names (src/checks/clients/python-worker.ts spawns it).
#
# Protocol: one JSON job per line on stdin, one JSON result per line on stdout, in order:
#   job    {"id", "op", "base_url", "api_key", "model", "max_tokens"?, "max_output_tokens"?, "prompt", "tool",
#           "tool_prompt", "tool_result", "timeout_s"}
#   result {"id", "ok": {...}} | {"id", "raised": {"type", "bases", "message", "where", ...}}
# The first line written is {"ready": {"openai": VERSION}} or {"missing": REASON}.
# The base URL is iari's loopback relay and the key a stand-in the relay swaps for the real one:
# the token never reaches this process. Nothing is taken from the environment (the client is
# built with every setting named, its HTTP client with trust_env False: no proxy, no netrc),
# and the process ends by itself when stdin closes or stays idle for IDLE_S seconds.
import json
import select
import sys
import traceback

IDLE_S = 30


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


try:
    import httpx2 as httpx
except ImportError:
    try:
        import httpx
    except ImportError:
        httpx = None
try:
    import openai
    from openai import OpenAI
except ImportError as error:
    emit({"missing": "openai is not installed for this interpreter (%s)" % error})
    sys.exit(0)
if httpx is None:
    emit({"missing": "openai's HTTP library (httpx2 or httpx) is not installed for this interpreter"})
    sys.exit(0)


def client(job):
    http = httpx.Client(trust_env=False, timeout=job["timeout_s"], follow_redirects=False)
    return OpenAI(
        base_url=job["base_url"],
        api_key=job["api_key"],
        organization=None,
        project=None,
        max_retries=0,
        timeout=job["timeout_s"],
        http_client=http,
    )


def bound(job):
    return {} if job.get("max_tokens") is None else {"max_tokens": job["max_tokens"]}


def user(text):
    return [{"role": "user", "content": text}]


def choice_of(completion):
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list) or len(choices) == 0:
        return None
    return choices[0]


def op_create(c, job):
    res = c.chat.completions.create(model=job["model"], messages=user(job["prompt"]), **bound(job))
    ch = choice_of(res)
    if ch is None:
        return {"choice": False}
    return {"choice": True, "text": ch.message.content, "finish": ch.finish_reason}


def op_stream(c, job):
    text = ""
    finish = None
    chunks = 0
    for chunk in c.chat.completions.create(model=job["model"], messages=user(job["prompt"]), stream=True, **bound(job)):
        chunks += 1
        for ch in chunk.choices or []:
            text += (ch.delta.content if ch.delta is not None else None) or ""
            if ch.finish_reason:
                finish = ch.finish_reason
    return {"text": text, "finish": finish, "chunks": chunks}


def op_stream_helper(c, job):
    text = ""
    with c.chat.completions.stream(model=job["model"], messages=user(job["prompt"]), **bound(job)) as s:
        for event in s:
            if event.type == "content.delta":
                text += event.delta
        final = s.get_final_completion()
    ch = choice_of(final)
    return {"text": text, "final_text": ch.message.content if ch else None, "finish": ch.finish_reason if ch else None}


def first_call(message):
    calls = getattr(message, "tool_calls", None) or []
    if len(calls) == 0:
        return None
    call = calls[0]
    fn = getattr(call, "function", None)
    return {"id": call.id, "name": getattr(fn, "name", None), "arguments": getattr(fn, "arguments", None)}


def parsed(arguments):
    try:
        return json.loads(arguments)
    except Exception as error:
        return "not JSON: %s: %s" % (type(error).__name__, error)


def op_tools(c, job, streamed):
    messages = user(job["tool_prompt"])
    tool = job["tool"]
    forced = {"type": "function", "function": {"name": tool["function"]["name"]}}
    request = dict(model=job["model"], tools=[tool], **bound(job))
    if streamed:
        with c.chat.completions.stream(messages=messages, tool_choice=forced, **request) as s:
            for _ in s:
                pass
            first = s.get_final_completion()
    else:
        first = c.chat.completions.create(messages=messages, tool_choice=forced, **request)
    ch = choice_of(first)
    call = first_call(ch.message) if ch is not None else None
    if call is None:
        return {"call": None}
    call["parsed"] = parsed(call["arguments"])
    if not isinstance(call["parsed"], dict):
        return {"call": call}
    # The documented loop: the assistant message goes back as it came, then the tool's result.
    messages = messages + [ch.message.model_dump(exclude_none=True), {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(job["tool_result"])}]
    if streamed:
        with c.chat.completions.stream(messages=messages, **request) as s:
            for _ in s:
                pass
            second = s.get_final_completion()
    else:
        second = c.chat.completions.create(messages=messages, **request)
    ch2 = choice_of(second)
    return {"call": call, "text": ch2.message.content if ch2 else None, "finish": ch2.finish_reason if ch2 else None}


def rbound(job):
    return {} if job.get("max_output_tokens") is None else {"max_output_tokens": job["max_output_tokens"]}


def flat(tool):
    """The chat tool in the Responses API's flat form."""
    fn = tool["function"]
    return {"type": "function", "name": fn["name"], "description": fn.get("description"), "parameters": fn.get("parameters"), "strict": False}


def dumped(items):
    return [o.model_dump(exclude_none=True) if hasattr(o, "model_dump") else o for o in (items or [])]


def response_view(r):
    details = getattr(r, "incomplete_details", None)
    return {"status": getattr(r, "status", None), "reason": getattr(details, "reason", None), "output": dumped(getattr(r, "output", None))}


def op_responses_create(c, job):
    r = c.responses.create(model=job["model"], input=job["prompt"], **rbound(job))
    out = response_view(r)
    out["text"] = r.output_text
    return out


TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def op_responses_stream(c, job):
    text = ""
    terminal = None
    for event in c.responses.create(model=job["model"], input=job["prompt"], stream=True, **rbound(job)):
        kind = getattr(event, "type", None)
        if kind == "response.output_text.delta":
            text += event.delta
        if kind in TERMINAL:
            terminal = event
    if terminal is None:
        return {"text": text, "terminal": None}
    out = response_view(terminal.response)
    out.update(text=text, terminal=terminal.type)
    return out


def op_responses_stream_helper(c, job):
    text = ""
    terminal = None
    with c.responses.stream(model=job["model"], input=job["prompt"], **rbound(job)) as s:
        for event in s:
            if event.type == "response.output_text.delta":
                text += event.delta
            if event.type in TERMINAL:
                terminal = event
        try:
            final = s.get_final_response()
        except RuntimeError as e:
            # openai/lib/streaming/responses/_responses.py: get_final_response() raises unless the
            # stream ended with response.completed; a truthful response.incomplete (the answer cut at
            # max_output_tokens) is the model's length, reported as such for the check to judge.
            if terminal is None or terminal.type != "response.incomplete":
                raise
            out = response_view(terminal.response)
            out.update(text=text, helper_raised_on_incomplete=str(e))
            return out
    out = response_view(final)
    out.update(text=text, final_text=final.output_text)
    return out


def op_responses_tools(c, job):
    tool = flat(job["tool"])
    items = [{"role": "user", "content": job["tool_prompt"]}]
    first = c.responses.create(model=job["model"], input=items, tools=[tool], tool_choice={"type": "function", "name": tool["name"]}, **rbound(job))
    calls = [o for o in first.output if getattr(o, "type", None) == "function_call"]
    if len(calls) == 0:
        return {"call": None, "status": getattr(first, "status", None)}
    call = calls[0]
    info = {"name": call.name, "arguments": call.arguments, "parsed": parsed(call.arguments)}
    if not isinstance(info["parsed"], dict):
        return {"call": info}
    # The documented loop (function-calling guide): input_list += response.output, then the function's result.
    items = items + list(first.output) + [{"type": "function_call_output", "call_id": call.call_id, "output": json.dumps(job["tool_result"])}]
    second = c.responses.create(model=job["model"], input=items, tools=[tool], **rbound(job))
    out = response_view(second)
    out.update(call=info, text=second.output_text)
    return out


def op_error(c, job):
    c.chat.completions.create(model=job["model"], messages=user(job["prompt"]), **bound(job))
    return {"raised": None}


OPS = {
    "create": op_create,
    "stream": op_stream,
    "stream_helper": op_stream_helper,
    "tools": lambda c, job: op_tools(c, job, False),
    "tools_stream_helper": lambda c, job: op_tools(c, job, True),
    "error": op_error,
    "responses_create": op_responses_create,
    "responses_stream": op_responses_stream,
    "responses_stream_helper": op_responses_stream_helper,
    "responses_tools": op_responses_tools,
}


def where(error):
    """The innermost frame inside the openai package (or the last one), as package-relative path:line."""
    frames = traceback.extract_tb(error.__traceback__)
    inside = [f for f in frames if "/openai/" in f.filename.replace("\\", "/")]
    frame = (inside or frames or [None])[-1]
    if frame is None:
        return None
    path = frame.filename.replace("\\", "/")
    cut = path.rfind("/openai/")
    return "%s:%d" % (path[cut + 1:] if cut >= 0 else path.rsplit("/", 1)[-1], frame.lineno)


def describe(error):
    out = {
        "type": type(error).__name__,
        "bases": [k.__name__ for k in type(error).__mro__],
        "message": str(error)[:600],
        "where": where(error),
    }
    if isinstance(error, openai.APIStatusError):
        out["status"] = error.status_code
        body = error.body
        message = body.get("message") if isinstance(body, dict) else None
        out["body_message"] = message if isinstance(message, str) else None
    return out


def run(job):
    c = client(job)
    try:
        return {"id": job["id"], "ok": OPS[job["op"]](c, job)}
    except Exception as error:
        return {"id": job["id"], "raised": describe(error)}
    finally:
        c.close()


emit({"ready": {"openai": openai.__version__}})
while True:
    ready, _, _ = select.select([sys.stdin], [], [], IDLE_S)
    if not ready:
        break
    line = sys.stdin.readline()
    if line == "":
        break
    try:
        job = json.loads(line)
    except ValueError:
        emit({"id": None, "raised": {"type": "BadJob", "bases": [], "message": "not JSON", "where": None}})
        continue
    emit(run(job))
