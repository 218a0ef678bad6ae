"""The documented command, ``python addin/server/serve.py``, over real HTTPS on loopback.

A throw-away self-signed certificate stands in for mkcert's; the server binds
127.0.0.1 only, and every request goes to 127.0.0.1.
"""
from __future__ import annotations

import datetime as dt
import ipaddress
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _catalogue import REPO
from _officejs import CALL, META, NA, chip_call, strict_json

SERVE = REPO / "addin" / "server" / "serve.py"
httpx = pytest.importorskip("httpx")


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1/localhost (what mkcert makes, minus its local CA)."""
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "localhost+2.pem", folder / "localhost+2-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening_addresses(port: int) -> set[str]:
    """Local IPv4 addresses in LISTEN state on ``port`` (Linux /proc/net/tcp)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        addr, p = local.split(":")
        if state == "0A" and int(p, 16) == port:
            found.add(socket.inet_ntoa(bytes.fromhex(addr)[::-1]))
    return found


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    cert, key = self_signed(tmp_path_factory.mktemp("certs"))
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVE), "--port", str(port),
                             "--cert", str(cert), "--key", str(key)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    client = httpx.Client(base_url=f"https://127.0.0.1:{port}", verify=str(cert), timeout=30)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if client.get(META).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"serve.py did not start:\n{proc.stdout.read()}")
            time.sleep(0.2)
        yield client, port, proc
    finally:
        client.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_https_on_loopback_only(server):
    client, port, _ = server
    if Path("/proc/net/tcp").exists():
        assert listening_addresses(port) == {"127.0.0.1"}
    meta = strict_json(client.get(META).text)
    assert {f["name"] for f in meta["functions"]} >= {"ROOFLINE.CRIT_BATCH", "ROOFLINE.VERSION"}


def test_calls_over_https(server):
    client = server[0]
    r = client.post(CALL, json=chip_call("crit_batch", ["H100", 8192, 8192]))
    assert r.status_code == 200
    [[value]] = strict_json(r.text)["result"]
    assert value == pytest.approx(318.155, abs=0.001)  # reference section 5
    r = client.post(CALL, json=chip_call("crit_batch", ["B900", 8192, 8192]))
    assert strict_json(r.text)["result"] == [[NA]]
    r = client.post(CALL, json=chip_call("crit_batch", ["H100", 8192, 8192, "bf17"]))
    assert r.status_code == 400 and "bf17" in r.text and "bf16" in r.text
    col = [[b] for b in range(1, 10001)]
    r = client.post(CALL, json=chip_call("matmul_time", ["H100", col, 8192, 8192]))
    assert r.status_code == 200 and len(strict_json(r.text)["result"]) == 10000


def _serve(*args, env=None):
    return subprocess.run([sys.executable, str(SERVE), *args], capture_output=True, text=True,
                          timeout=60, check=False, env=env)


def test_refuses_to_start_without_a_certificate(tmp_path):
    proc = _serve("--cert", str(tmp_path / "none.pem"), "--key", str(tmp_path / "none.pem"))
    assert proc.returncode == 2 and "mkcert" in proc.stderr


def test_refuses_to_start_without_a_licence_key(tmp_path):
    if (SERVE.parent / ".env").exists():
        pytest.skip("addin/server/.env may hold a key")
    env = {k: v for k, v in os.environ.items() if k != "XLWINGS_LICENSE_KEY"}
    proc = _serve("--http", "--port", str(free_port()), env=env)
    assert proc.returncode == 2 and "XLWINGS_LICENSE_KEY" in proc.stderr
