#!/usr/bin/env python3
"""fake_llm: a real OpenAI-compatible Chat Completions server for tests.

Binds 127.0.0.1 on a free port and prints "PORT\n" on stdout as its first
line. It exits when its standard input reaches end of file (so a test that
dies never leaves it behind), on SIGTERM, or after --lifetime seconds.

Endpoints:
  POST .../chat/completions   the protocol (any prefix: /v1, /openai/...)
  POST .../messages           Anthropic's Messages API: the same replies as
                              Chat Completions gives for the same system and
                              user text, as a tool_use block when the request
                              forces a tool (else a text block), stop_reason,
                              usage input_tokens (a quarter of them reported as
                              cache_read_input_tokens) and output_tokens, and
                              errors {"type": "error", "error": {"type",
                              "message"}}. It wants an anthropic-version header
                              (400 without); --expect-key checks x-api-key.
  GET  /stats                 {"requests": N, "keys": {KEY: COUNT}, "answered":
                              {KEY: COUNT}, "max_in_flight": N, "modes": {...},
                              "token_params": {"max_tokens": N, ...},
                              "temperatures": {"0.3": N, "none": N},
                              "protocols": {"openai": N, "anthropic": N}}
  GET  /stats?expr=E          the value of the Python expression E over those
                              stats (d), as print() writes it: what a test
                              script reads without starting a Python

A request's KEY is the first 16 hex digits of SHA-256 over its "messages"
array, so the same question asked again (a retry, a response_format
fallback) has the same key; "answered" counts 200 replies with content.

Faults (--fault KIND[:P], repeatable) hit an attempt with probability P
(default 1), drawn from a seeded generator; with --first-only only a key's
first attempt can be hit (so every key eventually succeeds). KIND is one of:
  429        rate limited, with --retry-after S and/or --retry-after-ms MS
  quota      429 with code insufficient_quota
  500 503    server errors;  401 403 404 400   client errors
  529        overloaded (Anthropic's overloaded_error), with any retry-after
  drop       the connection is closed without a reply
  malformed  200 with a body that is not JSON
  length     200 with finish_reason "length" and a cut reply
  invalid    200 whose content is JSON of the wrong shape
  error200   200 whose body is an error object (as some proxies send)
  html200    200 with an HTML page (a captive portal, a login page)
  stall      200 with headers and the first bytes of the body, then nothing
             for --stall-seconds S (default 600) before the rest
  silent     the request is read and nothing is sent for --stall-seconds
--reject-schema answers 400 (about response_format) to json_schema requests;
--reject-json-object does the same to json_object. --reject-max-tokens
answers 400 "Unsupported parameter: 'max_tokens' ... use 'max_completion_tokens'"
(as newer OpenAI models do) to requests that send max_tokens. --error-style flat|nested
chooses {"error": "msg"} or {"error": {"message", "type", "code"}}.
--expect-key K answers 401 unless "Authorization: Bearer K" or "api-key: K";
the 401 message echoes the key presented, as is, upper-cased or split in two
(--echo-key plain|upper|split), as some servers do.

Batch APIs (fake_batch.py), answered with the same replies as live requests:
  POST .../files and .../batches, GET .../batches (listed), .../batches/ID and
  .../files/ID/content (OpenAI and Azure); POST .../messages/batches, GET
  .../messages/batches (listed), .../messages/batches/ID and .../results
  (Anthropic); the --batch-* options shape them.

Judge mode: a request whose user message holds a <question> element (the
prompts/judge.md shape) is answered {"grade": G, "reason": "..."}. G is the
grade of the first key of --judge-grades FILE (JSON {"text fragment": G})
found in the <chunk> text, else --judge-grade G, else the number of
question words (capped at 3) found in the chunk. Fault "prose" (for any
request) answers 200 with plain prose and no JSON at all.

Scripted questions: --questions FILE (JSON {"text fragment": ["question",
...]}) makes a generate request whose <chunk> holds a fragment answer with
that fragment's questions (the first n of them, repeated when fewer), so
a test can hand the filters known bad questions: ones that refer to "the
passage" in some language, unanswerables the corpus answers, and so on.

Critique mode (prompts/critique.md: a <query> element, no <passage>):
{"clarity", "realism", "answerability", "specificity": 4, "reason"}, with
the scores of the first key of --critique FILE (JSON {"question fragment":
{"realism": 1, ...}}) found in the query overriding.
Verification mode (prompts/verify.md: a <query> and <passage id="...">
elements): {"answering": [...], "closest": ID, "reason"}; a passage answers
when --answers FILE (JSON {"question fragment": "passage text fragment" or
[...]}) maps a fragment of the query to a fragment of its text; "closest"
is the first passage.

Follow-up mode (prompts/generate-follow-up.md: an <earlier> element): the
questions are "And what about its W1 with W2 W3 N?", which name nothing without the
earlier turn; a chunk holding STANDALONE-FOLLOW-UP gets self-contained
ones instead (a model that ignores the instruction). Follow-up verification
(prompts/verify-follow-up.md: a <history> element besides <query>): asked
alone (empty history), the passage answers unless the query holds a
pronoun (it, its, that, this, they, them); with a history, it answers
unless its text holds NOT-EVEN-WITH-HISTORY.
"""
import argparse
import hashlib
import json
import os
import random
import re
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from fake_batch import BatchMixin

STOP_WORDS = set("""a an and are as at be by for from has have how in into is it its
of on or that the their then there these this to was were what when where which
while who why will with you your can does do not""".split())


def shape_reply(content, fault, rf, lead):
    """The reply text and finish reason for a fault mode: cut at max_tokens
    ("length"), the wrong shape ("invalid"); wrapped in prose and a code
    fence when the request asked for text rather than JSON."""
    finish = "stop"
    if fault == "length":
        content, finish = content[: len(content) // 2], "length"
    elif fault == "invalid":
        content = json.dumps({"items": ["nope"]})
    if rf == "text":
        content = lead + "\n```json\n" + content + "\n```\n"
    return content, finish


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.requests = 0
        self.keys = {}
        self.answered = {}
        self.in_flight = 0
        self.max_in_flight = 0
        self.modes = {}
        self.token_params = {}
        self.temperatures = {}
        self.protocols = {}
        self.files = {}            # file id -> bytes
        self.batches = {}          # batch id -> dict
        self.live = 0              # requests not from a batch
        self.files_uploaded = 0
        self.batch_creates = 0
        self.batch_polls = 0
        self.batch_lists = 0
        self.batch_malformed = 0
        self.line_max_tokens = {}  # custom_id -> max_tokens of each batch it was in (--batch-truncate)
        self.hung = False
        self.batch_lines = 0
        self.batch_sizes = []
        self.line_attempts = {}    # custom_id -> times seen in a batch
        self.rng = random.Random(args.seed)
        self.faults = []
        for spec in args.fault:
            kind, _, p = spec.partition(":")
            self.faults.append((kind, float(p) if p else 1.0))


def words_of(text):
    out = []
    for w in re.findall(r"[A-Za-z][A-Za-z0-9-]{3,}", text):
        lw = w.lower()
        if lw not in STOP_WORDS and lw not in out:
            out.append(lw)
    return out


# question forms in other languages, full of that language's function words
FORMS = {
    "German": [
        "Welche {0} Option ändert {1} für die {2}?",
        "Wie kann ich {0} mit {1} und der {2} verwenden?",
        "Warum ist {0} bei {1} und {2} nicht mehr möglich?",
        "Wo wird {0} für die {1} und {2} eingestellt?",
    ],
}


def scripted_questions(script, user, n):
    """Return the scripted questions for the first <chunk> holding a fragment, or None."""
    if not script:
        return None
    chunks = re.findall(r"<chunk>(.*?)</chunk>", user, re.S)
    for frag, qs in script.items():
        if chunks and frag in chunks[0]:
            return [{"question": qs[i % len(qs)], "answer": ""} for i in range(n)]
    return None


def make_questions(key, user, n, kind, script=None):
    """Return n distinct, deterministic questions built from the prompt's words."""
    scripted = scripted_questions(script, user, n)
    if scripted is not None:
        return scripted
    m = re.search(r"<chunk>(.*?)</chunk>", user, re.S)
    words = words_of(m.group(1) if m else user) or ["thing", "widget", "gadget"]
    # the quote: the passage's first sentence (at most 120 characters, cut
    # at a space), as it stands; a passage holding QUOTE-ELSEWHERE gets a
    # quote it does not hold (a model that paraphrases its evidence)
    text = m.group(1).strip() if m else ""
    quote = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0] if text else ""
    if len(quote) > 120:
        quote = quote[:120].rsplit(" ", 1)[0]
    if "QUOTE-ELSEWHERE" in user:
        quote = "words that this passage never says"
    h = int(key, 16)
    out = []
    forms = [
        "Which {0} option changes {1} for {2}?",
        "How can I make {0} work with {1} and {2}?",
        "Why would {0} break {1} in {2}?",
        "Where do I configure {0} {1} {2}?",
    ]
    # the language the prompt asks for; a chunk holding WRITE-IN-ENGLISH gets
    # English anyway (a model that ignores the instruction)
    lm = re.search(r"Language of the questions: (\w+)", user)
    if lm and lm.group(1) in FORMS and "WRITE-IN-ENGLISH" not in user:
        forms = FORMS[lm.group(1)]
    for i in range(n):
        pick = [words[(h >> (4 * j + 8 * i)) % len(words)] for j in range(3)]
        q = forms[(h + i) % len(forms)].format(*pick)
        if kind == "unanswerable":
            q = "Is there a limit on " + pick[0] + " " + pick[2] + " " + str(i) + "?"
        if kind == "follow-up" and "STANDALONE-FOLLOW-UP" not in user:
            q = "And what about its " + pick[0] + " with " + pick[1] + " " + pick[2] + " " + str(i) + "?"
        out.append({"question": q, "answer": pick[1] + " " + pick[2],
                    "quote": "" if kind == "unanswerable" else quote})
    return out


class Handler(BatchMixin, BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out without a delayed-ACK stall

    def log_message(self, fmt, *a):
        pass

    anthropic = False
    tool_name = None
    in_batch = False

    def reply(self, code, obj=None, raw=None, headers=()):
        if self.anthropic and code == 200 and obj is not None and "choices" in obj:
            obj = self.to_anthropic(obj)
        body = raw if raw is not None else json.dumps(obj).encode()
        self.send_body(code, body, headers)

    def send_body(self, code, body, headers=(), ctype="application/json"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def to_anthropic(self, obj):
        """A Chat Completions reply as the Messages API would give it."""
        choice = obj["choices"][0]
        text = choice["message"]["content"]
        block = {"type": "text", "text": text}
        stop = "end_turn"
        if choice["finish_reason"] == "length":
            stop = "max_tokens"
        elif self.tool_name:
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                block = {"type": "tool_use", "id": "toolu_" + obj["id"][-16:], "name": self.tool_name,
                         "input": parsed}
                stop = "tool_use"
        p = obj["usage"]["prompt_tokens"]
        return {"id": "msg_" + obj["id"][-16:], "type": "message", "role": "assistant",
                "model": obj["model"], "content": [block], "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": p - p // 4, "cache_creation_input_tokens": 0,
                          "cache_read_input_tokens": p // 4,
                          "output_tokens": obj["usage"]["completion_tokens"]}}

    def error_body(self, msg, typ, code):
        if self.anthropic:
            atype = {"requests": "rate_limit_error", "server_error": "api_error",
                     "insufficient_quota": "rate_limit_error"}.get(typ, typ)
            if code == "invalid_api_key":
                atype = "authentication_error"
            body = {"type": "error", "error": {"type": atype, "message": msg}}
            if typ == "insufficient_quota":
                body["error"]["details"] = {"error_code": "enforced_spend_limit_reached"}
            return body
        if self.server.st.args.error_style == "flat":
            return {"error": msg}
        return {"error": {"message": msg, "type": typ, "code": code, "param": None}}

    def do_GET(self):
        st = self.server.st
        path, _, query = self.path.partition("?")
        if path.endswith("/batches"):
            return self.batch_list(st)
        if path != "/stats" and ("/batches/" in path or "/files/" in path):
            return self.batch_get(st, path)
        if path != "/stats":
            return self.reply(404, self.error_body("not found", "invalid_request_error", None))
        with st.lock:
            obj = {"requests": st.requests, "keys": st.keys, "answered": st.answered,
                   "max_in_flight": st.max_in_flight, "modes": st.modes,
                   "token_params": st.token_params, "temperatures": st.temperatures,
                   "protocols": st.protocols, "live": st.live, "files_uploaded": st.files_uploaded,
                   "batch_creates": st.batch_creates, "batch_polls": st.batch_polls,
                   "batch_lists": st.batch_lists, "batch_malformed": st.batch_malformed,
                   "line_max_tokens": st.line_max_tokens,
                   "batch_lines": st.batch_lines, "batch_sizes": st.batch_sizes}
        expr = urllib.parse.parse_qs(query).get("expr")
        if expr:
            # the stats as a client's json.load gives them
            try:
                text = "%s\n" % (eval(expr[0], {}, {"d": json.loads(json.dumps(obj))}),)
                code = 200
            except Exception as e:  # the test shows what went wrong
                text, code = "%s: %s\n" % (type(e).__name__, e), 500
            return self.send_body(code, text.encode(), ctype="text/plain; charset=utf-8")
        self.reply(200, obj)

    def do_POST(self):
        st = self.server.st
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        path = self.path.split("?")[0]
        self.anthropic = path.endswith("/messages")
        self.tool_name = None
        if path.endswith("/files") or path.endswith("/batches"):
            return self.batch_post(st, path, raw)
        if not path.endswith("/chat/completions") and not self.anthropic:
            return self.reply(404, self.error_body("unknown path " + self.path,
                                                   "invalid_request_error", None))
        try:
            req = json.loads(raw)
        except ValueError:
            return self.reply(400, self.error_body("request body is not JSON",
                                                   "invalid_request_error", None))
        if st.args.record:
            with st.lock, open(st.args.record, "ab") as f:
                f.write(json.dumps(req).encode() + b"\n")
        if self.anthropic:
            if not self.headers.get("anthropic-version"):
                return self.reply(400, self.error_body("anthropic-version: header is required",
                                                       "invalid_request_error", None))
            if "max_tokens" not in req:
                return self.reply(400, self.error_body("max_tokens: Field required",
                                                       "invalid_request_error", None))
            req = self.from_anthropic(req)
        self.handle_request(st, req)

    def handle_request(self, st, req, batch=False):
        key = hashlib.sha256(json.dumps(req.get("messages"), sort_keys=True)
                             .encode()).hexdigest()[:16]
        rf = (req.get("response_format") or {}).get("type", "text")
        with st.lock:
            st.requests += 1
            st.live += not batch
            proto = "anthropic" if self.anthropic else "openai"
            st.protocols[proto] = st.protocols.get(proto, 0) + 1
            st.keys[key] = st.keys.get(key, 0) + 1
            st.modes[rf] = st.modes.get(rf, 0) + 1
            for p in ("max_tokens", "max_completion_tokens"):
                if p in req:
                    st.token_params[p] = st.token_params.get(p, 0) + 1
            t = "none" if "temperature" not in req else repr(req["temperature"])
            st.temperatures[t] = st.temperatures.get(t, 0) + 1
            attempt = st.keys[key]
            st.in_flight += 1
            st.max_in_flight = max(st.max_in_flight, st.in_flight)
            fault = None
            if not batch and not (st.args.first_only and attempt > 1):
                for kind, p in st.faults:
                    if st.rng.random() < p:
                        fault = kind
                        break
        try:
            self.answer(st, req, key, rf, fault)
        finally:
            with st.lock:
                st.in_flight -= 1

    def from_anthropic(self, req):
        """A Messages API request as the Chat Completions request it stands for."""
        msgs = []
        if req.get("system"):
            msgs.append({"role": "system", "content": req["system"]})
        msgs.extend(req.get("messages") or [])
        out = {"model": req.get("model"), "messages": msgs, "max_tokens": req["max_tokens"]}
        if "temperature" in req:
            out["temperature"] = req["temperature"]
        choice = req.get("tool_choice") or {}
        if req.get("tools") and choice.get("type") == "tool":
            self.tool_name = choice.get("name")
            out["response_format"] = {"type": "json_schema"}
        return out

    def answer(self, st, req, key, rf, fault):
        a = st.args
        if a.latency and not self.in_batch:
            time.sleep(a.latency / 1000.0)
        if a.expect_key is not None and not self.in_batch:
            auth = self.headers.get("Authorization", "")
            if self.anthropic:
                auth = "Bearer " + self.headers.get("x-api-key", "")
            if auth != "Bearer " + a.expect_key and self.headers.get("api-key") != a.expect_key:
                shown = (auth[7:] if auth.startswith("Bearer ") else self.headers.get("api-key", ""))
                if a.echo_key == "upper":
                    shown = shown.upper()
                elif a.echo_key == "split":
                    shown = shown[:len(shown) // 2] + " ... " + shown[len(shown) // 2:]
                # like OpenAI, echo the key presented, so tests can check it is scrubbed
                return self.reply(401, self.error_body("Incorrect API key provided: " + shown,
                                                       "invalid_request_error", "invalid_api_key"))
        if a.reject_max_tokens and "max_tokens" in req and not self.anthropic:
            return self.reply(400, self.error_body(
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.", "invalid_request_error", "unsupported_parameter"))
        if rf == "json_schema" and a.reject_schema and self.anthropic:
            return self.reply(400, self.error_body("tools: this model does not support tool use",
                                                   "invalid_request_error", None))
        if (rf == "json_schema" and a.reject_schema) or (rf == "json_object" and a.reject_json_object):
            return self.reply(400, self.error_body(
                "Invalid parameter: 'response_format' of type '%s' is not supported with this model." % rf,
                "invalid_request_error", None))
        if fault == "529":
            hdrs = [("retry-after", str(a.retry_after))] if a.retry_after is not None else []
            return self.reply(529, self.error_body("Overloaded", "overloaded_error", None), headers=hdrs)
        if fault == "429":
            hdrs = []
            if a.retry_after is not None:
                hdrs.append(("retry-after", str(a.retry_after)))
            if a.retry_after_ms is not None:
                hdrs.append(("retry-after-ms", str(a.retry_after_ms)))
            return self.reply(429, self.error_body("Rate limit reached", "requests", "rate_limit_exceeded"),
                              headers=hdrs)
        if fault == "quota":
            return self.reply(429, self.error_body(
                "You exceeded your current quota, please check your plan and billing details.",
                "insufficient_quota", "insufficient_quota"))
        if fault in ("400", "401", "403", "404", "500", "503"):
            return self.reply(int(fault), self.error_body("fault " + fault, "server_error", None))
        if fault == "drop":
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        if fault == "error200":
            return self.reply(200, self.error_body("upstream error: the model is overloaded",
                                                   "server_error", "upstream_error"))
        if fault == "html200":
            return self.reply(200, raw=b"<html><body>Please log in</body></html>")
        if fault in ("stall", "silent"):
            return self.stall(st, req, key, fault)
        if fault == "malformed":
            return self.reply(200, raw=b'{"id": "x", "choices": [{"message": ')
        if fault == "prose":
            return self.completion(st, req, key, "I think this passage is fairly relevant.", "stop", counted=False)
        user = ""
        for m in req.get("messages") or []:
            if m.get("role") == "user":
                user = m.get("content") or ""
        if "<query>" in user:
            return self.review(st, req, key, rf, fault, user)
        if "<question>" in user:
            return self.judge(st, req, key, rf, fault, user)
        mm = re.search(r"(\d+) question", user)
        count = int(mm.group(1)) if mm else 1
        km = re.search(r"kind: ([a-z-]+)", user)
        kind = km.group(1) if km else "factoid"
        if "<earlier>" in user:
            kind = "follow-up"
        content = json.dumps({"questions": make_questions(key, user, count, kind, st.script)})
        content, finish = shape_reply(content, fault, rf, "Here are the questions:")
        self.completion(st, req, key, content, finish, counted=fault is None)


    def stall(self, st, req, key, fault):
        if fault == "stall":
            body = json.dumps({"id": "chatcmpl-" + key, "object": "chat.completion",
                               "choices": []}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[:10])
            self.wfile.flush()
        time.sleep(st.args.stall_seconds)
        self.close_connection = True

    def completion(self, st, req, key, content, finish, counted=True):
        body = {
            "id": "chatcmpl-" + key, "object": "chat.completion", "created": 0,
            "model": req.get("model", "fake"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": finish}],
            "usage": {"prompt_tokens": len(json.dumps(req.get("messages"))) // 4,
                      "completion_tokens": len(content) // 4},
        }
        body["usage"]["total_tokens"] = body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]
        with st.lock:
            if counted and finish == "stop":
                st.answered[key] = st.answered.get(key, 0) + 1
        self.reply(200, body)

    def review(self, st, req, key, rf, fault, user):
        qm = re.search(r"<query>(.*?)</query>", user, re.S)
        query = qm.group(1).strip() if qm else ""
        passages = re.findall(r'<passage id="([^"]*)">(.*?)</passage>', user, re.S)
        hm = re.search(r"<history>(.*?)</history>", user, re.S)
        if passages and hm:
            if not hm.group(1).strip():
                pronoun = re.search(r"\b(it|its|that|this|they|them)\b", query, re.I)
                answering = [] if pronoun else [passages[0][0]]
            else:
                answering = [] if "NOT-EVEN-WITH-HISTORY" in passages[0][1] else [passages[0][0]]
            obj = {"answering": answering, "closest": passages[0][0], "reason": "fake follow-up verifier"}
        elif passages:
            answering = []
            for frag, texts in (st.answers or {}).items():
                if frag not in query:
                    continue
                for pid, text in passages:
                    for t in ([texts] if isinstance(texts, str) else texts):
                        if t in text and pid not in answering:
                            answering.append(pid)
            obj = {"answering": answering, "closest": passages[0][0], "reason": "fake verifier"}
        else:
            obj = {"clarity": 4, "realism": 4, "answerability": 4, "specificity": 4}
            for frag, scores in (st.critique or {}).items():
                if frag in query:
                    obj.update(scores)
                    break
            obj["reason"] = "fake critic"
        content = json.dumps(obj)
        content, finish = shape_reply(content, fault, rf, "Here:")
        self.completion(st, req, key, content, finish, counted=fault is None)

    def judge(self, st, req, key, rf, fault, user):
        a = st.args
        qm = re.search(r"<question>(.*?)</question>", user, re.S)
        cm = re.search(r"<chunk>(.*?)</chunk>", user, re.S)
        question = qm.group(1) if qm else ""
        chunk = cm.group(1) if cm else ""
        grade = None
        for frag, g in (st.judge_grades or {}).items():
            if frag in chunk:
                grade = g
                break
        if grade is None and a.judge_grade is not None:
            grade = a.judge_grade
        if grade is None:
            cw = set(words_of(chunk))
            grade = min(3, sum(1 for w in words_of(question) if w in cw))
        content = json.dumps({"grade": grade, "reason": "fake judge"})
        content, finish = shape_reply(content, fault, rf, "My grade:")
        self.completion(st, req, key, content, finish, counted=fault is None)

    def capture(self, anthropic):
        """A handler answering one batch line without a connection."""
        return Capture(self.server, anthropic)


class Capture(Handler):
    """A handler that answers one batch line without a connection."""

    def __init__(self, server, anthropic):
        self.server = server
        self.anthropic = anthropic
        self.tool_name = None
        self.in_batch = True
        self.headers = {}
        self.code, self.obj = None, None

    def send_body(self, code, body, headers=(), ctype="application/json"):
        self.code = code
        self.obj = json.loads(body)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        pass  # a client that hung up (a cancelled or killed run) is not an error


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0, help="ms per request")
    ap.add_argument("--fault", action="append", default=[])
    ap.add_argument("--first-only", action="store_true")
    ap.add_argument("--retry-after", type=float)
    ap.add_argument("--retry-after-ms", type=float)
    ap.add_argument("--reject-schema", action="store_true")
    ap.add_argument("--reject-json-object", action="store_true")
    ap.add_argument("--reject-max-tokens", action="store_true")
    ap.add_argument("--error-style", choices=["flat", "nested"], default="nested")
    ap.add_argument("--expect-key")
    ap.add_argument("--echo-key", choices=["plain", "upper", "split"], default="plain")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--judge-grade", type=int)
    ap.add_argument("--judge-grades")
    ap.add_argument("--questions")
    ap.add_argument("--critique")
    ap.add_argument("--answers")
    ap.add_argument("--record", help="append each chat request's body to this file, a line each")
    ap.add_argument("--lifetime", type=float, default=900)
    ap.add_argument("--stall-seconds", type=float, default=600)
    ap.add_argument("--batch-delay", type=float, default=0.5, help="seconds from creating a batch to its end")
    ap.add_argument("--batch-fail", type=float, default=0, help="share of lines failing in their first batch")
    ap.add_argument("--batch-expire", action="store_true", help="the first batch expires half done")
    ap.add_argument("--batch-max-lines", type=int, default=0, help="refuse files with more lines")
    ap.add_argument("--batch-malformed", type=float, default=0,
                    help="share of lines answered with prose (200) in their first batch")
    ap.add_argument("--batch-truncate", type=float, default=0, help="share of lines cut at max_tokens")
    ap.add_argument("--batch-malformed-always", action="store_true", help="in every batch, not only the first")
    ap.add_argument("--batch-create-hang", type=float, default=0, help="hold the first create's reply")
    ap.add_argument("--batch-results-origin", help="name Anthropic results at this origin (http://HOST:PORT)")
    ap.add_argument("--batch-duplicate", choices=["same", "different"],
                    help="give the first line of each batch's results twice")
    args = ap.parse_args()

    srv = Server(("127.0.0.1", 0), Handler)
    srv.st = State(args)
    srv.st.judge_grades = None
    if args.judge_grades:
        with open(args.judge_grades) as f:
            srv.st.judge_grades = json.load(f)
    srv.st.critique = srv.st.answers = None
    if args.critique:
        with open(args.critique) as f:
            srv.st.critique = json.load(f)
    if args.answers:
        with open(args.answers) as f:
            srv.st.answers = json.load(f)
    srv.st.script = None
    if args.questions:
        with open(args.questions) as f:
            srv.st.script = json.load(f)
    print(srv.server_address[1], flush=True)

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            pass
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Timer(args.lifetime, lambda: os._exit(0)).start()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    srv.serve_forever()


if __name__ == "__main__":
    main()
