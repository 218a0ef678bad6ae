"""Start rooflinexl's xlwings Server on this machine only (127.0.0.1).

    python addin/server/serve.py                 # https://127.0.0.1:8000 (what Excel needs)
    python addin/server/serve.py --port 8443     # another port
    python addin/server/serve.py --http          # plain http: scripts and tests only

Office.js loads add-ins over HTTPS only: make the certificate once with mkcert
(``certs/README.md``). The licence key comes from ``XLWINGS_LICENSE_KEY`` (or a
``.env`` file beside this script): ``noncommercial`` for non-commercial use under
PolyForm Noncommercial 1.0.0, an xlwings PRO key otherwise. Then sideload
``https://127.0.0.1:8000/manifest`` in Excel (docs/excel.md, "xlwings Server").
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOST = "127.0.0.1"
#: largest request body accepted, bytes (``ROOFLINEXL_SERVER_MAX_REQUEST_MB``, default 32)
MAX_REQUEST_BYTES = round(float(os.environ.get("ROOFLINEXL_SERVER_MAX_REQUEST_MB") or 32)
                          * 2**20)
#: what a custom-function call over the limit answers: Excel's #NUM! (CustomFunctions 1.4)
TOO_LARGE = {"result": [[{"type": "Error", "errorType": "Num"}]]}


class RequestLimit:
    """ASGI middleware: a request body over ``max_bytes`` is never read whole.

    A custom-function call over the limit answers ``#NUM!`` in its cell (HTTP 200,
    the answer Excel expects); any other request gets HTTP 413. The body is read
    at most ``max_bytes + 1`` bytes far, whatever ``Content-Length`` claims.
    """

    def __init__(self, app, max_bytes: int = MAX_REQUEST_BYTES):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") not in ("POST", "PUT", "PATCH"):
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            return await self._refuse(scope, send)
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                return await self._refuse(scope, send)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)

    async def _refuse(self, scope, send):
        if scope.get("path", "").endswith("/custom-functions-call"):
            status, payload = 200, json.dumps(TOO_LARGE).encode()
        else:
            status = 413
            payload = json.dumps({"detail": f"request body over {self.max_bytes:,} bytes "
                                            "(ROOFLINEXL_SERVER_MAX_REQUEST_MB)"}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    parser.add_argument("--http", action="store_true",
                        help="serve plain HTTP (Excel will not load the add-in; for scripts)")
    parser.add_argument("--cert", type=Path, default=HERE / "certs" / "localhost+2.pem",
                        help="TLS certificate (default certs/localhost+2.pem, from mkcert)")
    parser.add_argument("--key", type=Path, default=HERE / "certs" / "localhost+2-key.pem",
                        help="TLS private key (default certs/localhost+2-key.pem)")
    parser.add_argument("--log-level", default="warning", help="uvicorn log level")
    args = parser.parse_args(argv)

    if not args.http and not (args.cert.is_file() and args.key.is_file()):
        print(f"serve.py: no certificate at {args.cert} and {args.key}.\n"
              "Office.js loads add-ins over HTTPS only. Make one with mkcert, in "
              f"{HERE / 'certs'}:\n    mkcert -install\n    mkcert localhost 127.0.0.1 ::1\n"
              "or pass --http for scripts that do not need Excel.", file=sys.stderr)
        return 2

    # xlwings-server finds custom_functions/, pyproject.toml and .env here; its config
    # module sets XLWINGS_ON_SERVER before anything imports xlwings.
    os.environ["XLWINGS_PROJECT_DIR"] = str(HERE)
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    from xlwings_server.config import settings  # noqa: F401  (reads .env, sets the key)

    if not os.environ.get("XLWINGS_LICENSE_KEY"):
        print("serve.py: set XLWINGS_LICENSE_KEY: 'noncommercial' for non-commercial use "
              "(PolyForm Noncommercial 1.0.0), otherwise an xlwings PRO key.", file=sys.stderr)
        return 2

    import uvicorn
    from xlwings_server.main import main_app
    from xlwings_server.routers import xlwings as router

    # xlwings-server falls back to its bundled examples when custom_functions/ fails to
    # import with a ModuleNotFoundError (rooflinexl not installed): refuse to serve those.
    if not hasattr(router.custom_functions, "crit_batch"):
        try:
            import rooflinexl.udfs  # noqa: F401
        except ImportError as exc:
            print(f"serve.py: {exc}: from the repository root, "
                  "pip install -r addin/server/requirements.txt", file=sys.stderr)
        else:
            print(f"serve.py: xlwings-server loaded {router.custom_functions.__file__}, "
                  f"not {HERE / 'custom_functions'}", file=sys.stderr)
        return 2

    scheme = "http" if args.http else "https"
    print(f"rooflinexl xlwings Server on {scheme}://{HOST}:{args.port} "
          f"(manifest: {scheme}://{HOST}:{args.port}/manifest)", flush=True)
    uvicorn.run(RequestLimit(main_app), host=HOST, port=args.port, log_level=args.log_level,
                ssl_certfile=None if args.http else str(args.cert),
                ssl_keyfile=None if args.http else str(args.key))
    return 0


if __name__ == "__main__":
    sys.exit(main())
