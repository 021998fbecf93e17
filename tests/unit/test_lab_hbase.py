"""The lab's HBase: generated configuration and the health probe's reading of HBase's znodes
(the znode bytes below were read from the lab's HBase 2.6.4 with the probe itself)."""

from __future__ import annotations

import re
import socket
import threading
from pathlib import Path

import pytest
from benchcamp.ops.lab import hbase_probe, services
from benchcamp.ops.lab.config import hbase_log4j2, hbase_site
from benchcamp.ops.lab.hbase_probe import (
    ProbeError,
    ServerLocation,
    meta_region_state,
    read_znodes,
    region_server_name,
    server_location,
)

# /hbase/meta-region-server and /hbase/master of a standalone HBase 2.6.4 on 127.0.0.1
META_ZNODE = bytes.fromhex(
    "ff000000146d61737465723a313630303063b011327c0e2634504255460a150a093132372e302e302e31"
    "10947d18dba9f3bea03410001803"
)
MASTER_ZNODE = bytes.fromhex(
    "ff000000146d61737465723a31363030306c77a0383defd772504255460a150a093132372e302e302e31"
    "10807d18bf84f3bea034100018ffffffff0f"
)


def properties(xml: str) -> dict[str, str]:
    return dict(re.findall(r"<name>([^<]+)</name><value>([^<]*)</value>", xml))


def test_hbase_is_standalone_on_loopback_with_ports_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHCAMP_LAB_HBASE_ZOOKEEPER_PORT", "12181")
    monkeypatch.setenv("BENCHCAMP_LAB_HBASE_MASTER_PORT", "17000")
    monkeypatch.setenv("BENCHCAMP_LAB_HBASE_REGIONSERVER_PORT", "17020")
    site = properties(hbase_site(tmp_path))
    assert site["hbase.cluster.distributed"] == "false"
    assert site["hbase.rootdir"] == f"file://{tmp_path / 'hbase' / 'root'}"
    assert site["hbase.zookeeper.property.dataDir"] == str(tmp_path / "hbase" / "zookeeper")
    assert site["hbase.unsafe.stream.capability.enforce"] == "false"
    assert (site["hbase.zookeeper.quorum"], site["hbase.zookeeper.property.clientPort"]) == (
        "127.0.0.1",
        "12181",
    )
    assert (site["hbase.master.port"], site["hbase.regionserver.port"]) == ("17000", "17020")
    assert site["hbase.master.info.port"] == site["hbase.regionserver.info.port"] == "-1"
    addresses = {
        name: value for name, value in site.items() if name.endswith((".hostname", ".address", ".quorum"))
    }
    assert len(addresses) == 5 and set(addresses.values()) == {"127.0.0.1"}


def test_hbase_logs_go_under_the_lab_directory(tmp_path: Path) -> None:
    text = hbase_log4j2(tmp_path)
    files = re.findall(r"^appender\.file\.file(?:Name|Pattern) = (.+)$", text, re.MULTILINE)
    assert files and all(file.startswith(str(tmp_path / "logs") + "/") for file in files)
    assert "rootLogger = INFO, console, file" in text.splitlines()
    # the lab cluster's HBase daemons share a host's configuration: each names its file itself
    shared = hbase_log4j2(tmp_path, "${sys:hbase.log.dir}/${sys:hbase.log.file}")
    assert "appender.file.fileName = ${sys:hbase.log.dir}/${sys:hbase.log.file}" in shared.splitlines()


def test_the_znodes_name_the_servers_and_meta_state() -> None:
    meta = server_location(META_ZNODE)
    assert meta == ServerLocation("127.0.0.1", 16020, 1795428242651)
    assert region_server_name(meta) == "127.0.0.1,16020,1795428242651"  # as listed under /hbase/rs
    assert meta_region_state(META_ZNODE) == "OPEN"
    assert str(server_location(MASTER_ZNODE)) == "127.0.0.1:16000"
    opening = META_ZNODE[:-1] + bytes([2])  # the same record, region state OPENING
    assert meta_region_state(opening) == "OPENING"
    assert meta_region_state(META_ZNODE[:-2]) == "OPEN"  # no state field: HBase reads it as OPEN


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "magic byte"),
        (b"\xff\x00\x00\x00\x02idXXXX", "not an HBase protobuf record"),
        (MASTER_ZNODE[:40], "runs past the znode's end"),
    ],
)
def test_unreadable_znodes_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(ProbeError, match=message):
        server_location(data)


def test_a_zookeeper_that_hangs_up_is_an_error_not_a_hang() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        closer = threading.Thread(target=lambda: server.accept()[0].close())
        closer.start()
        with pytest.raises((ProbeError, ConnectionResetError)):
            read_znodes("127.0.0.1", server.getsockname()[1], ("/hbase/master",))
        closer.join()


def varint(number: int) -> bytes:
    out = b""
    while number >= 0x80:
        out += bytes([number & 0x7F | 0x80])
        number >>= 7
    return out + bytes([number])


def meta_znode(port: int, state: int = 3, start_code: int = 1795428242651) -> bytes:
    """A /hbase/meta-region-server record as HBase writes it, for a region server on `port`."""
    host = b"127.0.0.1"
    server = b"\x0a" + varint(len(host)) + host + b"\x10" + varint(port) + b"\x18" + varint(start_code)
    message = b"\x0a" + varint(len(server)) + server + b"\x10\x00\x18" + varint(state)
    return b"\xff" + len(b"master:1").to_bytes(4, "big") + b"master:1" + b"PBUF" + message


def test_the_record_helper_writes_what_hbase_writes() -> None:
    assert server_location(meta_znode(16020)) == server_location(META_ZNODE)
    assert meta_region_state(meta_znode(16020, state=2)) == "OPENING"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def probe_answers(
    monkeypatch: pytest.MonkeyPatch,
    port: int = 16020,
    master: bytes | None = MASTER_ZNODE,
    state: int = 3,
    servers: list[str] | None = None,
    namespaces: tuple[str, ...] = ("default", "hbase"),
    meta: bool = True,
) -> None:
    answer = (
        {"/hbase/master": master, "/hbase/meta-region-server": meta_znode(port, state) if meta else None},
        {
            "/hbase/rs": [f"127.0.0.1,{port},1795428242651"] if servers is None else servers,
            "/hbase/namespace": list(namespaces),
        },
    )
    monkeypatch.setattr(hbase_probe, "read_znodes", lambda *args, **kwargs: answer)


def check() -> tuple[bool, str]:
    return services._check_hbase()  # noqa: SLF001 (the service's own probe)


def test_healthy_only_when_meta_is_open_on_a_live_listening_server_and_the_master_initialised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    probe_answers(monkeypatch, master=None)
    assert check() == (False, "ZooKeeper answers, no active master yet")
    probe_answers(monkeypatch, meta=False)
    assert check() == (False, "master 127.0.0.1:16000 active, hbase:meta not assigned yet")
    probe_answers(monkeypatch, state=2)
    assert check() == (False, "hbase:meta OPENING on 127.0.0.1:16020")
    probe_answers(monkeypatch, servers=["127.0.0.1,16020,1795428999999"])  # restarted since
    assert check() == (False, "hbase:meta on 127.0.0.1:16020, which is not a live region server")
    closed = free_port()
    probe_answers(monkeypatch, port=closed)
    assert check() == (False, f"region server 127.0.0.1:{closed} does not accept connections")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        live = listener.getsockname()[1]
        probe_answers(monkeypatch, port=live, namespaces=())
        assert check() == (
            False,
            f"hbase:meta OPEN on 127.0.0.1:{live}, master 127.0.0.1:16000 still initialising",
        )
        probe_answers(monkeypatch, port=live)
        assert check() == (True, f"master 127.0.0.1:16000 initialised, hbase:meta OPEN on 127.0.0.1:{live}")
