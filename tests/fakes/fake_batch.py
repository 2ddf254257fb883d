"""fake_batch: the batch APIs of tests/fakes/fake_llm.py, a mixin of its
request handler (which gives reply, send_body, error_body, from_anthropic,
handle_request and capture).

Batch APIs, answered with the same replies as live requests (no --fault):
  POST .../files (multipart, purpose=batch), POST .../batches, GET
  .../batches/ID, GET .../files/ID/content (OpenAI; under /openai/ the Azure
  form, which wants an api-version query and line urls /chat/completions);
  POST .../messages/batches, GET .../messages/batches/ID and .../results
  (Anthropic). A batch ends --batch-delay seconds after it was created (it is
  answered on the first poll after that); while it runs, its request_counts
  say the share of that delay gone by is finished, as a provider's grow. --batch-fail P fails a share P of
  lines (by custom_id hash) the first time they are in a batch (error file
  lines with status 500; Anthropic "errored"); --batch-expire makes the first
  batch expire with only its first half answered (batch_expired). OpenAI
  batches keep their "metadata"; GET .../batches and .../messages/batches list
  them newest first (limit, after / after_id, has_more, last_id).
  --batch-malformed P answers a share P of lines (by custom_id hash) in their
  first batch (in every batch with --batch-malformed-always) with a 200 reply
  whose content is prose, not JSON; --batch-truncate P cuts a share P of lines
  in their first batch at max_tokens (finish_reason length, stop_reason
  max_tokens), and /stats line_max_tokens gives each line's max_tokens in
  each batch it was in.
  --batch-create-hang S holds the reply to the first batch create for S
  seconds after the batch exists (a client killed meanwhile never learns its
  id). --batch-results-origin http://HOST:PORT names the results of ended
  message batches at that origin instead of the fake's own (a hostile
  reply sending the client, and its key, elsewhere). --batch-duplicate
  same|different gives the first result line of each batch twice, the
  second time the same or with another answer. /stats adds files_uploaded, batch_creates, batch_polls, batch_lists,
  batch_lines, batch_sizes and live (requests not from a batch).
"""
import hashlib
import json
import re
import time


PLANTED = json.dumps({"questions": [{"question": "A planted question?", "answer": "planted", "quote": ""}]})


class BatchMixin:
    """The files, batches and message-batches endpoints of the fake server."""

    def batch_auth(self, st):
        """Return an error reply when the key or the API version is wrong, else None."""
        a = st.args
        if "/openai/" in self.path and "api-version=" not in self.path and "/openai/v1/" not in self.path:
            return self.reply(404, self.error_body("Resource not found (no api-version)", "invalid_request_error", None))
        if self.anthropic and not self.headers.get("anthropic-version"):
            return self.reply(400, self.error_body("anthropic-version: header is required",
                                                   "invalid_request_error", None))
        if a.expect_key is not None:
            got = self.headers.get("x-api-key") or self.headers.get("api-key") or \
                (self.headers.get("Authorization") or "")[7:]
            if got != a.expect_key:
                return self.reply(401, self.error_body("Incorrect API key provided: " + got,
                                                       "invalid_request_error", "invalid_api_key"))
        return None

    def batch_post(self, st, path, raw):
        self.anthropic = path.endswith("/messages/batches")
        if self.batch_auth(st) is not None:
            return
        if path.endswith("/files"):
            ctype = self.headers.get("Content-Type", "")
            m = re.search(r"boundary=(\S+)", ctype)
            if not m:
                return self.reply(400, self.error_body("expected multipart/form-data", "invalid_request_error", None))
            content, purpose = None, None
            for part in raw.split(b"--" + m.group(1).encode()):
                head, _, body = part.partition(b"\r\n\r\n")
                if body.endswith(b"\r\n"):
                    body = body[:-2]
                if b'name="file"' in head:
                    content = body
                elif b'name="purpose"' in head:
                    purpose = body.decode()
            if content is None or purpose != "batch":
                return self.reply(400, self.error_body("a file and purpose=batch are required",
                                                       "invalid_request_error", None))
            if st.args.batch_max_lines and content.count(b"\n") > st.args.batch_max_lines:
                return self.reply(400, self.error_body("too many requests in one file", "invalid_request_error", None))
            with st.lock:
                st.files_uploaded += 1
                fid = "file-%d" % (len(st.files) + 1)
                st.files[fid] = content
            return self.reply(200, {"id": fid, "object": "file", "bytes": len(content), "purpose": "batch",
                                    "filename": "input.jsonl", "status": "processed"})
        req = json.loads(raw or b"{}")
        if self.anthropic:
            lines = req.get("requests") or []
            if not lines:
                return self.reply(400, self.error_body("requests: at least one", "invalid_request_error", None))
            with st.lock:
                bid = "msgbatch_%03d" % (len(st.batches) + 1)
                st.batches[bid] = {"anthropic": True, "lines": lines, "created": time.time(), "result": None}
                st.batch_creates += 1
                st.batch_sizes.append(len(lines))
            self.hang(st)
            return self.reply(200, self.msgbatch_obj(st, bid))
        fid = req.get("input_file_id")
        if fid not in st.files:
            return self.reply(400, self.error_body("no such file " + str(fid), "invalid_request_error", None))
        want = "/chat/completions" if "/openai/" in self.path else "/v1/chat/completions"
        if req.get("endpoint") != want or req.get("completion_window") != "24h":
            return self.reply(400, self.error_body("endpoint must be " + want + " with completion_window 24h",
                                                   "invalid_request_error", None))
        lines = [json.loads(x) for x in st.files[fid].decode().splitlines() if x.strip()]
        for x in lines:
            if x.get("url") != want or x.get("method") != "POST":
                return self.reply(400, self.error_body("line url must be " + want, "invalid_request_error", None))
        with st.lock:
            bid = "batch_%03d" % (len(st.batches) + 1)
            st.batches[bid] = {"anthropic": False, "lines": lines, "created": time.time(), "result": None,
                               "input_file_id": fid, "metadata": req.get("metadata")}
            st.batch_creates += 1
            st.batch_sizes.append(len(lines))
        self.hang(st)
        return self.reply(200, self.batch_obj(st, bid))

    def hang(self, st):
        """--batch-create-hang: hold the first create's reply (the batch exists)."""
        with st.lock:
            first = not st.hung
            st.hung = True
        if first and st.args.batch_create_hang:
            time.sleep(st.args.batch_create_hang)

    def batch_list(self, st):
        path, _, query = self.path.partition("?")
        self.anthropic = path.endswith("/messages/batches")
        if self.batch_auth(st) is not None:
            return
        q = dict(x.partition("=")[::2] for x in query.split("&") if x)
        limit = int(q.get("limit") or 20)
        after = q.get("after_id" if self.anthropic else "after")
        with st.lock:
            st.batch_lists += 1
            ids = [i for i in sorted(st.batches, key=lambda i: (st.batches[i]["created"], i), reverse=True)
                   if st.batches[i]["anthropic"] == self.anthropic]
        if after in ids:
            ids = ids[ids.index(after) + 1:]
        page = ids[:limit]
        data = [self.msgbatch_obj(st, i) if self.anthropic else self.batch_obj(st, i) for i in page]
        obj = {"data": data, "has_more": len(ids) > limit, "first_id": page[0] if page else None,
               "last_id": page[-1] if page else None}
        if not self.anthropic:
            obj["object"] = "list"
        return self.reply(200, obj)

    def run_line(self, st, body, anthropic):
        """The reply a live request with 'body' gets: (status, JSON object)."""
        cap = self.capture(anthropic)
        req = body
        if anthropic:
            req = cap.from_anthropic(body)
        cap.handle_request(st, req, batch=True)
        return cap.code, cap.obj

    def finish_batch(self, st, bid):
        """Answer every line of batch 'bid' once, with the configured failures."""
        b = st.batches[bid]
        if b["result"] is not None:
            return
        a = st.args
        expire = a.batch_expire and not st.__dict__.get("expired_one")
        if expire:
            st.expired_one = True
        out, err = [], []
        for i, line in enumerate(b["lines"]):
            cid = line["custom_id"]
            with st.lock:
                st.line_attempts[cid] = st.line_attempts.get(cid, 0) + 1
                first = st.line_attempts[cid] == 1
                st.batch_lines += 1
            h = int(hashlib.sha256(cid.encode()).hexdigest()[:8], 16)
            if expire and i >= len(b["lines"]) // 2:
                err.append((cid, "expired", None))
                continue
            if first and a.batch_fail and (h % 1000) < a.batch_fail * 1000:
                err.append((cid, "errored", None))
                continue
            code, obj = self.run_line(st, line["params"] if b["anthropic"] else line["body"], b["anthropic"])
            if code == 200 and (first or a.batch_malformed_always) and a.batch_malformed and ((h // 1000) % 1000) < a.batch_malformed * 1000:
                # a 200 line whose reply is prose, not the JSON asked for
                if b["anthropic"]:
                    obj["content"] = [{"type": "text", "text": "Sure! Here are some questions about it."}]
                    obj["stop_reason"] = "end_turn"
                else:
                    obj["choices"][0]["message"]["content"] = "Sure! Here are some questions about it."
                with st.lock:
                    st.batch_malformed += 1
            params = line["params"] if b["anthropic"] else line["body"]
            if a.batch_truncate:
                with st.lock:
                    st.line_max_tokens.setdefault(cid, []).append(
                        params.get("max_tokens") or params.get("max_completion_tokens"))
            if code == 200 and first and a.batch_truncate and ((h // 1000000) % 1000) < a.batch_truncate * 1000:
                # a reply cut at max_tokens
                if b["anthropic"]:
                    obj["stop_reason"] = "max_tokens"
                else:
                    obj["choices"][0]["finish_reason"] = "length"
                    obj["choices"][0]["message"]["content"] = obj["choices"][0]["message"]["content"][:20]
            if code == 200:
                out.append((cid, obj))
            else:
                err.append((cid, "errored", obj))
        b["result"] = (out, err)
        b["status"] = "expired" if expire else "completed"
        if not b["anthropic"]:
            with st.lock:
                ofid = "file-%d" % (len(st.files) + 1)
                st.files[ofid] = "".join(json.dumps({"id": "batch_req_%d" % i, "custom_id": c,
                                                     "response": {"status_code": 200, "request_id": "r%d" % i,
                                                                  "body": o}, "error": None}) + "\n"
                                         for i, (c, o) in enumerate(self.duplicated(out))).encode()
                b["output_file_id"] = ofid
                if err:
                    efid = "file-%d" % (len(st.files) + 1)
                    lines = []
                    for c, kind, o in err:
                        if kind == "expired":
                            lines.append({"custom_id": c, "response": None,
                                          "error": {"code": "batch_expired", "message": "This request could not "
                                                    "be executed before the completion window expired."}})
                        else:
                            lines.append({"custom_id": c, "response": {
                                "status_code": 500, "request_id": "r",
                                "body": o or {"error": {"message": "The server had an error", "type": "server_error"}}},
                                "error": None})
                    st.files[efid] = "".join(json.dumps(x) + "\n" for x in lines).encode()
                    b["error_file_id"] = efid

    def duplicated(self, out):
        """--batch-duplicate: the results 'out' with their first line given again."""
        a = self.server.st.args
        if not a.batch_duplicate or not out:
            return out
        c, o = out[0]
        again = json.loads(json.dumps(o))
        if a.batch_duplicate == "different":
            # another answer for the same request
            if "choices" in again:
                again["choices"][0]["message"]["content"] = PLANTED
            else:
                again["content"] = [{"type": "text", "text": PLANTED}]
        return out + [(c, again)]

    @staticmethod
    def finished_so_far(st, b):
        """While a batch runs: its lines in proportion to the delay gone by."""
        gone = (time.time() - b["created"]) / max(st.args.batch_delay, 1e-9)
        return min(len(b["lines"]), int(len(b["lines"]) * gone))

    def batch_obj(self, st, bid):
        b = st.batches[bid]
        done = time.time() - b["created"] >= st.args.batch_delay
        if done:
            self.finish_batch(st, bid)
        obj = {"id": bid, "object": "batch", "endpoint": "/v1/chat/completions", "input_file_id": b["input_file_id"],
               "completion_window": "24h", "status": b.get("status", "completed") if done else
               ("validating" if time.time() - b["created"] < st.args.batch_delay / 3 else "in_progress"),
               "output_file_id": b.get("output_file_id") if done else None,
               "error_file_id": b.get("error_file_id") if done else None,
               "created_at": int(b["created"]), "errors": None, "metadata": b.get("metadata"),
               "request_counts": {"total": len(b["lines"]),
                                  "completed": len(b["result"][0]) if done else self.finished_so_far(st, b),
                                  "failed": len(b["result"][1]) if done else 0}}
        return obj

    def msgbatch_obj(self, st, bid):
        b = st.batches[bid]
        done = time.time() - b["created"] >= st.args.batch_delay
        if done:
            self.finish_batch(st, bid)
        running = 0 if done else self.finished_so_far(st, b)
        counts = {"processing": 0 if done else len(b["lines"]) - running, "succeeded": running, "errored": 0,
                  "canceled": 0, "expired": 0}
        if done:
            counts["succeeded"] = len(b["result"][0])
            for _, kind, _ in b["result"][1]:
                counts[kind] += 1
        port = self.server.server_address[1]
        return {"id": bid, "type": "message_batch", "processing_status": "ended" if done else "in_progress",
                "request_counts": counts,
                "created_at": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(b["created"])) +
                ".%06dZ" % int((b["created"] % 1) * 1e6),
                "expires_at": "2026-12-02T00:00:00Z", "ended_at": "2026-12-01T00:10:00Z" if done else None,
                "results_url": "%s/v1/messages/batches/%s/results" % (
                    st.args.batch_results_origin or "http://127.0.0.1:%d" % port, bid) if done else None}

    def batch_get(self, st, path):
        self.anthropic = "/messages/batches" in path
        if self.batch_auth(st) is not None:
            return
        m = re.search(r"/files/([^/]+)/content$", path)
        if m:
            if m.group(1) not in st.files:
                return self.reply(404, self.error_body("no such file", "invalid_request_error", None))
            return self.send_body(200, st.files[m.group(1)], [])
        m = re.search(r"/messages/batches/([^/]+)/results$", path)
        if m:
            b = st.batches.get(m.group(1))
            if not b or b["result"] is None:
                return self.reply(404, self.error_body("no results yet", "not_found_error", None))
            out, err = b["result"]
            lines = [{"custom_id": c, "result": {"type": "succeeded", "message": o}} for c, o in self.duplicated(out)]
            for c, kind, o in err:
                r = {"type": kind}
                if kind == "errored":
                    r["error"] = {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}
                lines.append({"custom_id": c, "result": r})
            return self.send_body(200, "".join(json.dumps(x) + "\n" for x in lines).encode(), [])
        m = re.search(r"/batches/([^/]+)$", path)
        if m and m.group(1) in st.batches:
            with st.lock:
                st.batch_polls += 1
            if self.anthropic:
                return self.reply(200, self.msgbatch_obj(st, m.group(1)))
            return self.reply(200, self.batch_obj(st, m.group(1)))
        return self.reply(404, self.error_body("not found", "not_found_error", None))
