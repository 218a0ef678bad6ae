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
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOST = "127.0.0.1"


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
    uvicorn.run(main_app, host=HOST, port=args.port, log_level=args.log_level,
                ssl_certfile=None if args.http else str(args.cert),
                ssl_keyfile=None if args.http else str(args.key))
    return 0


if __name__ == "__main__":
    sys.exit(main())
