"""A real S3 API on loopback for the tests: moto's standalone server, with its writes made atomic.

Usage: .venv/bin/python tests/s3_server.py -H 127.0.0.1 -p PORT

This is `moto_server` (moto.server.main: the same app, request handler and threaded werkzeug
server) with one change: requests that write (PUT, POST, DELETE) run one at a time.

Why: moto checks `If-None-Match: *` and then stores the object in two steps, with no lock
between them, on a server that handles each request on its own thread. Two create-only PUTs of
one key can therefore both succeed when the interpreter switches threads between the check and
the store (seen in CI: two writers both claimed one input, round 3 of
eight_writers_racing_on_a_bucket_land_every_input_once; reproduced with 8 threads racing on one
key, 2 of 200 rounds had two winners at `sys.setswitchinterval(1e-6)`). Amazon S3 (and GCS and
Azure) make a conditional write atomic: at most one create of a key succeeds, the others get 412
(or 409 while both are in flight). perfhouse's commit protocol relies on that, so the server the
tests use must give it; reads stay concurrent.

The request body is read before the lock is taken, so a slow upload does not hold up the others.

S3_FAULTS=1 turns on a fault injector for benches/write_faults.sh: the N-th write request fails
(see `Faults`).

S3_SERVER_SWITCH_INTERVAL=SECONDS sets the interpreter's thread switch interval (default 0.005):
tests/it/object_store.rs sets it to 1e-6 to make moto's race, were the lock gone, show in a few
hundred rounds.
"""

import io
import os
import sys
import threading

import moto.server
from moto.moto_server.werkzeug_app import DomainDispatcherApplication

WRITES = {"PUT", "POST", "DELETE"}
_lock = threading.Lock()


class AtomicWrites:
    """WSGI middleware: one write request at a time, its response built inside the lock."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if environ.get("REQUEST_METHOD") not in WRITES:
            return self.app(environ, start_response)
        length = environ.get("CONTENT_LENGTH")
        if length and not environ.get("HTTP_TRANSFER_ENCODING"):
            body = environ["wsgi.input"].read(int(length))
            environ["wsgi.input"] = io.BytesIO(body)
        with _lock:
            return list(self.app(environ, start_response))


class Faults:
    """WSGI middleware (S3_FAULTS=1): fails the N-th write request, for benches/write_faults.sh.

    POST /__faults__?n=N&status=S&sticky=0|1 resets the count of write requests (PUT, POST,
    DELETE: uploads, copies, multipart steps, deletes) and makes the N-th fail with status S
    (default 403, which clients do not retry; 503 is retried), and with sticky=1 every later
    one too; n=0 fails none. GET /__faults__ lists the write requests since, one a line:
    `N METHOD PATH?QUERY [copy] [FAILED]`.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        method = environ.get("REQUEST_METHOD")
        path = environ.get("PATH_INFO", "")
        query = environ.get("QUERY_STRING", "")
        if path == "/__faults__":
            if method == "POST":
                args = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
                with _faults_lock:
                    _faults.update(
                        n=int(args.get("n", 0)),
                        status=int(args.get("status", 403)),
                        sticky=args.get("sticky") == "1",
                        count=0,
                        seen=[],
                    )
                body = b"ok"
            else:
                with _faults_lock:
                    body = "".join(line + "\n" for line in _faults["seen"]).encode()
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [body]
        if method not in WRITES:
            return self.app(environ, start_response)
        with _faults_lock:
            _faults["count"] += 1
            n, want = _faults["count"], _faults["n"]
            fail = want > 0 and (n == want or (_faults["sticky"] and n > want))
            copy = " copy" if environ.get("HTTP_X_AMZ_COPY_SOURCE") else ""
            _faults["seen"].append(
                f"{n} {method} {path}{'?' + query if query else ''}{copy}{' FAILED' if fail else ''}"
            )
            status = _faults["status"]
        if not fail:
            return self.app(environ, start_response)
        # The body of a request that fails is read all the same (the client sent it).
        length = environ.get("CONTENT_LENGTH")
        if length:
            environ["wsgi.input"].read(int(length))
        code = {403: "AccessDenied", 500: "InternalError", 503: "SlowDown"}.get(status, "InjectedFault")
        reason = {403: "Forbidden", 500: "Internal Server Error", 503: "Service Unavailable"}.get(status, "Error")
        start_response(f"{status} {reason}", [("Content-Type", "application/xml")])
        return [
            f"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>{code}</Code>"
            f"<Message>injected fault: write request {n}</Message></Error>".encode()
        ]


_faults = {"n": 0, "status": 403, "sticky": False, "count": 0, "seen": []}
_faults_lock = threading.Lock()


class Dispatcher(DomainDispatcherApplication):
    def __call__(self, environ, start_response):
        app = AtomicWrites(super().__call__)
        if os.environ.get("S3_FAULTS"):
            app = Faults(app)
        return app(environ, start_response)


moto.server.DomainDispatcherApplication = Dispatcher

if __name__ == "__main__":
    if os.environ.get("S3_SERVER_SWITCH_INTERVAL"):
        sys.setswitchinterval(float(os.environ["S3_SERVER_SWITCH_INTERVAL"]))
    moto.server.main(sys.argv[1:])
