"""Issue 16, item 9: the xlwings Server project under load and oversized calls.

Functions run in worker threads, off the event loop, so a small call is answered
while a large one is still computing; a call whose arguments broadcast beyond the
result limit, or whose request body is over the request limit, answers Excel's
``#NUM!`` (HTTP 200, what Office.js expects) instead of using gigabytes and
failing with HTTP 500.
"""
from __future__ import annotations

import asyncio
import importlib.util
import time

import pytest
from _catalogue import REPO
from _officejs import CALL, NUM, chip_call, strict_json

httpx = pytest.importorskip("httpx")
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def _serve_module():
    spec = importlib.util.spec_from_file_location("serve", REPO / "addin" / "server" / "serve.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def app():
    from xlwings_server.main import main_app

    return _serve_module().RequestLimit(main_app, max_bytes=2 * 2**20)


async def _post(client, payload):
    t0 = time.perf_counter()
    r = await client.post(CALL, json=payload)
    return r, time.perf_counter() - t0


def test_small_calls_are_answered_while_a_large_one_runs(app):
    # 500,000 cells: about 0.3 s of arithmetic and 4 s of xlwings' argument and result
    # conversion; before the fix all of it ran on the event loop and a one-cell call
    # issued meanwhile waited for the whole of it
    big = chip_call("matmul_time", ["H100", [[b] for b in range(1, 100_001)],
                                    [list(range(1, 6))], 8192])
    small = chip_call("crit_batch", ["H100", 8192, 8192])

    async def run():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test",
                                     timeout=300) as client:
            big_task = asyncio.create_task(_post(client, big))
            answered = []  # latencies of small calls answered while the big one ran
            while not big_task.done():
                await asyncio.sleep(0.1)
                r, seconds = await _post(client, small)
                assert r.status_code == 200
                [[value]] = strict_json(r.text)["result"]
                assert value == pytest.approx(318.155, abs=0.001)  # reference section 5
                if not big_task.done():
                    answered.append(seconds)
            r_big, _ = await big_task
            return answered, r_big

    answered, r_big = asyncio.run(run())
    assert r_big.status_code == 200 and len(strict_json(r_big.text)["result"]) == 100_000
    quick = [s for s in answered if s < 1.0]
    assert len(quick) >= 3, answered


def test_broadcast_beyond_the_result_limit_answers_num_at_once(app):
    from fastapi.testclient import TestClient

    client = TestClient(app)
    rows = [[b] for b in range(1, 10_001)]  # a column of 10,000 B
    cols = [list(range(1, 10_001))]  # a row of 10,000 D: 1e8 cells broadcast
    payload = chip_call("matmul_time", ["H100", rows, cols, 8192])
    t0 = time.perf_counter()
    r = client.post(CALL, json=payload)
    assert time.perf_counter() - t0 < 5
    assert r.status_code == 200 and strict_json(r.text)["result"] == [[NUM]]


def test_request_over_the_size_limit_answers_num(app):
    from fastapi.testclient import TestClient

    client = TestClient(app)
    payload = chip_call("matmul_time", ["H100", [[1.5] * 50 for _ in range(20_000)], 8192, 8192])
    r = client.post(CALL, json=payload)  # about 3.3 MB, over the 2 MB limit of this app
    assert r.status_code == 200 and strict_json(r.text)["result"] == [[NUM]]
    r = client.post("/xlwings/custom-scripts-call", content=b"x" * (3 * 2**20))
    assert r.status_code == 413
