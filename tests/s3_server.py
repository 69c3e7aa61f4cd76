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


class Dispatcher(DomainDispatcherApplication):
    def __call__(self, environ, start_response):
        return AtomicWrites(super().__call__)(environ, start_response)


moto.server.DomainDispatcherApplication = Dispatcher

if __name__ == "__main__":
    if os.environ.get("S3_SERVER_SWITCH_INTERVAL"):
        sys.setswitchinterval(float(os.environ["S3_SERVER_SWITCH_INTERVAL"]))
    moto.server.main(sys.argv[1:])
