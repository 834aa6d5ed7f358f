#!/usr/bin/env python3
# ===-- utils/scripted-llm-server.py - OpenAI-compatible test server ------===#
#
# Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
#
# ===----------------------------------------------------------------------===#
"""A real HTTP server speaking the OpenAI chat-completions protocol, for tests.

It serves scripted replies from a JSON file, records every request it gets,
and injects faults on demand, so that the LLM client of clang-maxcode can be
tested end to end over loopback. Python standard library only.

Subcommands:

  serve --script S.json [--port-file F] [--log L.jsonl] [--port N]
      Run in the foreground on 127.0.0.1 (port 0: a free port). Writes
      "http://127.0.0.1:PORT/v1" to --port-file (or prints it) once listening.

  start --script S.json --state DIR [--log L.jsonl]
      Start `serve` detached, wait until it answers GET /health, then print
      its URL. DIR receives: url, port, pid, server.log (stdout/stderr) and,
      unless --log says otherwise, requests.jsonl.

  stop --state DIR
      Stop the server started with `start` by its pid (SIGTERM; SIGKILL if
      still there after --wait seconds), wait until it is gone, and remove
      DIR/pid. Requests being answered are finished and logged first.

The script (docs/LLM.md has the full description):

  {"replies": [ENTRY, ...]}

An ENTRY is taken for a request when it is the first entry, in order, that
is not used up and whose "match" (a regular expression searched in the
request's messages, joined by newlines) matches, or that has no "match".
An entry is used once unless it has "times": N (or "times": 0, for ever).

  {"content": "text"}                 a normal reply (all n choices get it)
  {"contents": ["a", "b"]}            one content per choice (cycled to n)
  {"finish_reason": "length"}         default "stop"
  {"usage": {"prompt_tokens": 1, "completion_tokens": 2}}   else estimated
  {"delay": 2.5, ...}                 wait this long before replying
  {"fault": "http-500"}               HTTP 500 with an OpenAI error body
  {"fault": "http-429", "retry_after": 1}   HTTP 429 with Retry-After
  {"status": 503, "error": "text"}    any HTTP status with an error body; in
                                      "error", {authorization} is replaced by
                                      the request's Authorization header (as
                                      hosted APIs echo a wrong key)
  {"fault": "slow", "delay": 3}       a reply slower than the client's timeout
  {"fault": "malformed-json"}         200 with a body that is not JSON
  {"fault": "truncated"}              Content-Length larger than the body
                                      sent, then the connection is closed
  {"fault": "empty-choices"}          200 with "choices": []
  {"fault": "drop"}                   close the connection without replying

A request no entry matches gets HTTP 400 "no scripted reply matches".
"""

import argparse
import http.server
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

FAULTS = ("http-500", "http-429", "slow", "malformed-json", "truncated",
          "empty-choices", "drop")


def estimate_tokens(text):
    """A plausible token count: about four characters a token."""
    return max(1, (len(text) + 3) // 4)


class Script:
    """The scripted entries and how many times each was used."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if isinstance(data, list):
            data = {"replies": data}
        self.entries = data.get("replies", [])
        if not isinstance(self.entries, list):
            raise ValueError("%s: \"replies\" must be a list" % path)
        for i, e in enumerate(self.entries):
            if not isinstance(e, dict):
                raise ValueError("%s: entry %d is not an object" % (path, i))
            fault = e.get("fault")
            if fault is not None and fault not in FAULTS:
                raise ValueError("%s: entry %d: unknown fault %r (known: %s)"
                                 % (path, i, fault, ", ".join(FAULTS)))
            if "match" in e:
                e["_regex"] = re.compile(e["match"], re.S)
        self.used = [0] * len(self.entries)
        self.lock = threading.Lock()

    def take(self, prompt):
        """Returns (index, entry) for a request, or (None, None)."""
        with self.lock:
            for i, e in enumerate(self.entries):
                times = e.get("times", 1)
                if times and self.used[i] >= times:
                    continue
                rx = e.get("_regex")
                if rx is not None and not rx.search(prompt):
                    continue
                self.used[i] += 1
                return i, e
        return None, None


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, script, log_path):
        super().__init__(addr, Handler)
        self.script = script
        self.log_path = log_path
        self.log_lock = threading.Lock()
        self.counter = 0
        self.in_flight = 0

    def begin(self):
        with self.log_lock:
            self.counter += 1
            self.in_flight += 1
            return self.counter, self.in_flight

    def end(self, record):
        with self.log_lock:
            self.in_flight -= 1
            if self.log_path:
                with open(self.log_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(record, sort_keys=True) + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "scripted-llm-server/1"

    def log_message(self, fmt, *args):
        sys.stderr.write("scripted-llm-server: %s\n" % (fmt % args))

    # --- replies -----------------------------------------------------------
    def send_json(self, status, obj, extra_headers=()):
        body = json.dumps(obj).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra_headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def send_raw(self, status, body, content_length=None):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length",
                         str(len(body) if content_length is None
                             else content_length))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def send_error_json(self, status, message, extra_headers=()):
        self.send_json(status, {"error": {
            "message": message, "type": "scripted_error", "code": status}},
            extra_headers)

    def hang_up(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # --- GET ---------------------------------------------------------------
    def do_GET(self):
        if self.path.rstrip("/") in ("/health", "/v1/health"):
            self.send_json(200, {"status": "ok"})
        elif self.path.rstrip("/").endswith("/models"):
            self.send_json(200, {"object": "list", "data": [
                {"id": "scripted", "object": "model",
                 "owned_by": "scripted-llm-server"}]})
        else:
            self.send_error_json(404, "no such path: %s" % self.path)

    # --- POST --------------------------------------------------------------
    def do_POST(self):
        index, in_flight = self.server.begin()
        record = {"index": index, "time_start": time.time(),
                  "concurrent": in_flight, "method": "POST",
                  "path": self.path, "headers": dict(self.headers.items()),
                  "entry": None, "outcome": None}
        try:
            self.handle_post(record)
        except (BrokenPipeError, ConnectionResetError) as e:
            # The client gave up (its timeout) while we were slow.
            record["outcome"] = (record["outcome"] or "") + \
                " (client hung up: %s)" % type(e).__name__
        finally:
            record["time_end"] = time.time()
            self.server.end(record)

    def handle_post(self, record):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            record["body_text"] = raw.decode("utf-8", "replace")
            record["outcome"] = "bad-request"
            self.send_error_json(400, "request body is not JSON")
            return
        record["body"] = body
        if not self.path.rstrip("/").endswith("/chat/completions"):
            record["outcome"] = "not-found"
            self.send_error_json(404, "no such path: %s" % self.path)
            return
        messages = body.get("messages") if isinstance(body, dict) else None
        if not isinstance(messages, list) or not messages:
            record["outcome"] = "bad-request"
            self.send_error_json(400, "\"messages\" must be a non-empty list")
            return
        prompt = "\n".join(str(m.get("content", "")) for m in messages
                           if isinstance(m, dict))
        entry_index, entry = self.server.script.take(prompt)
        if entry is None:
            record["outcome"] = "unmatched"
            self.send_error_json(400, "no scripted reply matches this request")
            return
        record["entry"] = entry_index
        self.reply(entry, body, prompt, record)

    def reply(self, entry, body, prompt, record):
        fault = entry.get("fault")
        record["outcome"] = fault or ("status-%d" % entry["status"]
                                      if "status" in entry else "reply")
        delay = float(entry.get("delay", 0))
        if delay > 0:
            time.sleep(delay)

        if fault == "drop":
            self.hang_up()
            return
        if fault == "http-500":
            self.send_error_json(500, entry.get("error",
                                                "scripted internal error"))
            return
        if fault == "http-429":
            retry_after = entry.get("retry_after", 1)
            self.send_error_json(429, entry.get("error", "rate limited"),
                                 [("Retry-After", str(retry_after))])
            return
        if "status" in entry and entry["status"] != 200:
            message = str(entry.get("error", "scripted error"))
            message = message.replace(
                "{authorization}", self.headers.get("Authorization", ""))
            self.send_error_json(int(entry["status"]), message)
            return
        if fault == "malformed-json":
            self.send_raw(200, b'{"id": "chatcmpl-scripted", "choices": [{"mess')
            return

        n = body.get("n", 1)
        if not isinstance(n, int) or n < 1:
            n = 1
        contents = entry.get("contents")
        if not isinstance(contents, list) or not contents:
            contents = [entry.get("content", "")]
        choices = []
        completion = 0
        for i in range(n):
            text = contents[i % len(contents)]
            completion += estimate_tokens(text)
            choices.append({"index": i,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": entry.get("finish_reason",
                                                       "stop")})
        if fault == "empty-choices":
            choices = []
        usage = entry.get("usage") or {
            "prompt_tokens": estimate_tokens(prompt),
            "completion_tokens": completion}
        usage = dict(usage)
        usage.setdefault("total_tokens", usage.get("prompt_tokens", 0) +
                         usage.get("completion_tokens", 0))
        reply = {"id": "chatcmpl-scripted-%d" % record["index"],
                 "object": "chat.completion", "created": int(time.time()),
                 "model": body.get("model") or "scripted",
                 "choices": choices, "usage": usage}
        if fault == "truncated":
            data = json.dumps(reply).encode("utf-8")
            self.send_raw(200, data[:len(data) // 2],
                          content_length=len(data))
            self.hang_up()
            return
        self.send_json(200, reply)


# --- subcommands -----------------------------------------------------------
def serve(args):
    script = Script(args.script)
    server = Server(("127.0.0.1", args.port), script, args.log)
    url = "http://127.0.0.1:%d/v1" % server.server_address[1]

    def on_term(signum, frame):
        # shutdown() waits for serve_forever, so it cannot run on its thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(url + "\n")
        os.replace(tmp, args.port_file)
    else:
        print(url, flush=True)
    server.serve_forever(poll_interval=0.1)
    # Let requests being answered (a slow reply) finish and be logged, so
    # that the log holds every request received; idle keep-alive connections
    # are not waited for.
    deadline = time.monotonic() + 30
    while server.in_flight > 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    server.server_close()
    return 0


def answers(url, timeout=1.0):
    try:
        with urllib.request.urlopen(url + "/health", timeout=timeout) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is not alive; only its parent can reap it, so read its state.
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def start(args):
    state = os.path.abspath(args.state)
    os.makedirs(state, exist_ok=True)
    url_file = os.path.join(state, "url")
    for name in ("url", "port", "pid"):
        try:
            os.remove(os.path.join(state, name))
        except FileNotFoundError:
            pass
    log = args.log or os.path.join(state, "requests.jsonl")
    cmd = [sys.executable, os.path.abspath(__file__), "serve",
           "--script", os.path.abspath(args.script), "--port-file", url_file,
           "--log", os.path.abspath(log)]
    with open(os.path.join(state, "server.log"), "ab") as out:
        # Its own session and no inherited pipes: whoever ran `start` (a lit
        # RUN line, a test binary) can wait for us without waiting for it.
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=out, start_new_session=True,
                                close_fds=True)
    with open(os.path.join(state, "pid"), "w", encoding="utf-8") as f:
        f.write("%d\n" % proc.pid)
    deadline = time.monotonic() + args.wait
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.stderr.write("scripted-llm-server: server exited with code %d;"
                             " see %s\n" % (proc.returncode,
                                            os.path.join(state, "server.log")))
            return 1
        if os.path.exists(url_file):
            with open(url_file, encoding="utf-8") as f:
                url = f.read().strip()
            if answers(url):
                with open(os.path.join(state, "port"), "w",
                          encoding="utf-8") as f:
                    f.write(url.rsplit(":", 1)[1].split("/")[0] + "\n")
                print(url, flush=True)
                return 0
        time.sleep(0.05)
    proc.kill()
    sys.stderr.write("scripted-llm-server: no answer within %.0f s\n"
                     % args.wait)
    return 1


def stop(args):
    pid_file = os.path.join(args.state, "pid")
    try:
        with open(pid_file, encoding="utf-8") as f:
            pid = int(f.read().strip())
    except (OSError, ValueError):
        sys.stderr.write("scripted-llm-server: no server started in %s\n"
                         % args.state)
        return 1
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + args.wait
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if pid_alive(pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        while pid_alive(pid):
            time.sleep(0.05)
    os.remove(pid_file)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="run in the foreground")
    s.add_argument("--script", required=True)
    s.add_argument("--port", type=int, default=0)
    s.add_argument("--port-file")
    s.add_argument("--log", help="append each request to this JSONL file")
    s = sub.add_parser("start", help="start detached and wait until ready")
    s.add_argument("--script", required=True)
    s.add_argument("--state", required=True)
    s.add_argument("--log")
    s.add_argument("--wait", type=float, default=30)
    s = sub.add_parser("stop", help="stop a server started with start")
    s.add_argument("--state", required=True)
    s.add_argument("--wait", type=float, default=40)
    args = p.parse_args()
    if args.cmd in ("serve", "start"):
        try:
            Script(args.script)
        except (OSError, ValueError, re.error) as e:
            sys.stderr.write("scripted-llm-server: bad script: %s\n" % e)
            return 1
    return {"serve": serve, "start": start, "stop": stop}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
